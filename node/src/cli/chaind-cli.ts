import { existsSync } from "node:fs";
import { NodeCallError } from "@chaind/core/comet-rpc-client";
import { ConfigError } from "@chaind/core/config-table";
import { YARGS_COMPLETION_HOOK } from "@chaind/core/shell-completion";
import { CliError } from "../client/cli-error.js";
import { cobraMessage, SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import type { ChainProgram } from "./chain-program.js";
import { CHAIND_COMMANDS } from "./chaind-commands.js";
import { directGlobalArgs, parseDirectCommand } from "./direct-command.js";
import { globalOptions } from "./global-options.js";

/**
 * Runs the `chaind` command line of a chain binary; expected failures print one line and exit 1. Only the
 * command run is loaded (see chaind-commands.ts), and `version`, `pre-upgrade` and `start` in their plain forms
 * skip yargs too (direct-command.ts).
 */
export async function runChaindCli(given: ChainProgram, argv = process.argv.slice(2)): Promise<void> {
  const program = checkedProgram(given);
  try {
    const direct = parseDirectCommand(argv);
    if (direct?.command === "version") {
      const { printVersion } = await import("./version.js");
      printVersion(program, direct.flags.has("long"), String(direct.flags.get("output") ?? "text"));
    } else if (direct?.command === "pre-upgrade") {
      const { runPreUpgrade } = await import("./pre-upgrade.js");
      await runPreUpgrade(program, directGlobalArgs(direct).home);
    } else if (direct?.command === "start") {
      const { startCommand } = await import("./start.js");
      await startCommand(await program.app()).handler(directGlobalArgs(direct) as never);
    } else await runYargs(program, argv);
  } catch (e) {
    const expected = e instanceof CliError || e instanceof NodeCallError || e instanceof ConfigError;
    const message = expected ? (e as Error).message : `unexpected error: ${(e as Error).stack ?? e}`;
    process.stderr.write(`Error: ${message}\n`);
    process.exitCode = e instanceof CliError ? e.exitCode : 1;
  }
}

/** `version` prints the program's name and version without loading the app: they must be the app's own. */
function checkedProgram(p: ChainProgram): ChainProgram {
  return {
    name: p.name,
    version: p.version,
    app: async () => {
      const def = await p.app();
      if (def.name !== p.name || def.version !== p.version)
        throw new Error(`the program says ${p.name} ${p.version}, its app ${def.name} ${def.version}`);
      return def;
    },
  };
}

/** Commands that make a home, or need none: a --home that does not exist yet is theirs to create. */
const MAKES_HOME = [
  "init",
  "testnet",
  "keys add",
  "keys import",
  "keys import-hex",
  "keys mnemonic",
  "version",
  "debug",
];

/**
 * A --home given on the command line that does not exist is a typo, not a request for defaults: without this,
 * queries would answer from whatever node listens on localhost and `keys list` would find no keys, exit 0.
 */
function checkHomeGiven(argv: string[], words: string[], home: string): void {
  const given = argv.some((a) => a === "--home" || a.startsWith("--home="));
  if (!given || existsSync(home)) return;
  const command = words.join(" ");
  if (MAKES_HOME.some((c) => command === c || command.startsWith(`${c} `)) || words.length === 0) return;
  throw new CliError(
    `home folder ${home} does not exist (--home): create it with init or testnet, or name another`,
  );
}

async function runYargs(program: ChainProgram, argv: string[]): Promise<void> {
  const [{ default: yargs }, { lazyCommand }] = await Promise.all([
    import("yargs"),
    import("./lazy-command.js"),
  ]);
  // Flags such as `--rpc.laddr` are names, as cobra's are, not paths into nested objects.
  let cli = yargs(argv)
    .parserConfiguration({ "dot-notation": false })
    .scriptName(program.name)
    .options(globalOptions);
  for (const entry of CHAIND_COMMANDS) cli = cli.command(lazyCommand(entry, program) as never);
  await cli
    .middleware((args) => checkHomeGiven(argv, args._.map(String), String(args.home)), true)
    .demandCommand(1, SHOW_GROUP_HELP)
    .strict()
    // Answers the completion scripts' --get-yargs-completions; `completion <shell>` is a command of its own.
    .completion(YARGS_COMPLETION_HOOK, false)
    .help()
    .alias("help", "h")
    .fail((msg, err, y) => {
      if (err) throw err;
      if (msg === SHOW_GROUP_HELP) return y.showHelp("log");
      throw new CliError(cobraMessage(msg, argv, program.name, runningCommand(cli)));
    })
    .parseAsync();
}

/** The declaration of the innermost command yargs is running (`tx <hash>`), "" at the top. */
function runningCommand(cli: unknown): string {
  // yargs keeps the path of commands run in its context; its typings do not show the internal methods.
  const internal = (cli as { getInternalMethods(): { getContext(): { fullCommands: string[] } } })
    .getInternalMethods()
    .getContext();
  return internal.fullCommands.at(-1) ?? "";
}
