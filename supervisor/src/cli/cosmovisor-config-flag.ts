import { VisorError } from "../errors/visor-error.js";

/**
 * `--cosmovisor-config <path>` (`-c <path>`), taken out of visor's arguments wherever cosmovisor takes it, so
 * it never reaches yargs or the daemon.
 *
 * Cosmovisor's rule: before the command it is a flag of the root command (`-c` too); after `run`, whose
 * arguments are the daemon's, cosmovisor looks for `--cosmovisor-config` (or `-cosmovisor-config`, in any case)
 * and takes it out with the value after it. Visor keeps that rule and adds: `--cosmovisor-config=<path>`
 * after `run` too; `-c` before `run` is visor's (cosmovisor passes it on to the daemon), after `run` the
 * daemon's; a second occurrence is an error (cosmovisor passes it on).
 */
export function takeCosmovisorConfig(argv: readonly string[]): { configFile?: string; argv: string[] } {
  let configFile: string | undefined;
  const rest: string[] = [];
  let command: string | undefined;
  const take = (value: string | undefined) => {
    if (value === undefined || value === "")
      throw new VisorError("CONFIG", "--cosmovisor-config requires an argument");
    if (configFile !== undefined) throw new VisorError("CONFIG", "--cosmovisor-config given twice");
    configFile = value;
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const inRun = command === "run";
    const long = inRun ? /^--?cosmovisor-config$/i : /^--cosmovisor-config$/;
    const longWithValue = inRun ? /^--cosmovisor-config=/i : /^--cosmovisor-config=/;
    if (long.test(a) || (!inRun && a === "-c")) take(argv[++i]);
    else if (longWithValue.test(a)) take(a.slice(a.indexOf("=") + 1));
    else if (!inRun && a.startsWith("-c=")) take(a.slice(3));
    else {
      if (command === undefined && !a.startsWith("-")) command = a;
      rest.push(a);
    }
  }
  return { configFile, argv: rest };
}
