import { DEFAULT_HOME, type GlobalArgs } from "./global-options.js";

/** A command line the direct path understands completely: the command, and its flags by name. */
interface DirectArgs {
  command: "version" | "pre-upgrade" | "start";
  flags: Map<string, string | true>;
}

/** The flags each direct command takes: a choice list, `string` for any value, `boolean` for a bare switch. */
const DIRECT_FLAGS: Record<
  DirectArgs["command"],
  Record<string, readonly string[] | "string" | "boolean">
> = {
  version: {
    home: "string",
    log_level: "string",
    log_format: ["plain", "json"],
    long: "boolean",
    output: ["text", "json"],
  },
  "pre-upgrade": { home: "string", log_level: "string", log_format: ["plain", "json"] },
  start: { home: "string", log_level: "string", log_format: ["plain", "json"] },
};

const ALIASES: Record<string, string> = { o: "output" };

/**
 * `version`, `pre-upgrade` and `start` in their plain forms (the ones visor runs: `version --long --output json`,
 * `pre-upgrade --home <dir>`, `start --home <dir>`), read without loading yargs, whose start-up alone costs more
 * than `version` and `pre-upgrade` do (its string-width builds Unicode tables as it loads).
 * Anything else (help, an unknown or repeated flag, a value yargs would refuse) answers null and goes to yargs,
 * which then says what is wrong exactly as it always has.
 */
export function parseDirectCommand(argv: readonly string[]): DirectArgs | null {
  const [command, ...rest] = argv;
  if (command !== "version" && command !== "pre-upgrade" && command !== "start") return null;
  const known = DIRECT_FLAGS[command];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < rest.length; i++) {
    const m = rest[i].match(/^(?:--([a-z_]+)|-([a-z]))(?:=(.*))?$/);
    if (!m) return null;
    const name = m[1] ?? ALIASES[m[2]];
    const kind = name === undefined ? undefined : known[name];
    if (kind === undefined || flags.has(name)) return null;
    if (kind === "boolean") {
      if (m[3] !== undefined) return null;
      flags.set(name, true);
      continue;
    }
    const value = m[3] ?? rest[++i];
    if (value === undefined || value.startsWith("-") || (kind !== "string" && !kind.includes(value)))
      return null;
    flags.set(name, value);
  }
  return { command, flags };
}

/** The options every command takes, with yargs' defaults where a flag was not given. */
export function directGlobalArgs(args: DirectArgs): GlobalArgs {
  const text = (name: string, dflt: string) => {
    const v = args.flags.get(name);
    return typeof v === "string" ? v : dflt;
  };
  return {
    home: text("home", DEFAULT_HOME),
    log_level: text("log_level", "info"),
    log_format: text("log_format", "plain") as GlobalArgs["log_format"],
  };
}
