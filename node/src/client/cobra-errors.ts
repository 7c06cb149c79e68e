/**
 * The message group commands (query, tx, keys, ...) give yargs' demandCommand: the fail handler shows that
 * group's help for it and exits 0, as cobra does for a command that only holds subcommands.
 */
export const SHOW_GROUP_HELP = "show the group's help";

/**
 * yargs' argument errors in the words cobra prints them, on one line: what Cosmos operators know and their
 * scripts match (`unknown flag: --x`, `unknown command "x" for "chaind"`, `accepts 2 arg(s), received 1`).
 * `argv` is the command line as given and `program` the binary's name, to tell flags from commands and to name
 * the command an unknown word was given to. `command` is the declaration of the command that ran
 * (`tx <hash>`, `block [height]`): its positionals tell an extra argument of a leaf from an unknown subcommand.
 */
export function cobraMessage(msg: string, argv: readonly string[], program: string, command = ""): string {
  const unknown = /^Unknown arguments?: (.+)$/.exec(msg);
  if (unknown) {
    // yargs lists a dashed flag twice (as given and in camelCase); the first is the one given.
    const names = unknown[1].split(", ");
    const name = names[0];
    const long = argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`));
    if (long) return `unknown flag: --${name}`;
    const short = argv.find((a) => /^-[^-]/.test(a) && a.slice(1).includes(name));
    if (short) return `unknown shorthand flag: '${name[0]}' in ${short}`;
    const arity = tooManyArgs(command, names.length);
    if (arity) return arity;
    const at = argv.indexOf(name);
    const path = argv.slice(0, Math.max(at, 0)).filter((a) => !a.startsWith("-"));
    return `unknown command "${name}" for "${[program, ...path].join(" ")}"`;
  }
  const few = /^Not enough non-option arguments: got (\d+), need at least (\d+)$/.exec(msg);
  if (few) return `accepts ${few[2]} arg(s), received ${few[1]}`;
  const many = /^Too many non-option arguments: got (\d+), maximum of (\d+)$/.exec(msg);
  if (many) return `accepts at most ${many[2]} arg(s), received ${many[1]}`;
  const choice = /^Invalid values:\s*Argument: (\S+), Given: (.*), Choices: (.*)$/s.exec(msg.trim());
  if (choice?.[2] === '""') return `flag needs an argument: --${choice[1]}`;
  if (choice && new RegExp(`[<[]${choice[1]}[\\]>|]`).test(command)) {
    // A positional outside its choices: cobra's OnlyValidArgs names the command, not a flag.
    const at = argv.indexOf(choice[2].replace(/^"|"$/g, ""));
    const path = argv.slice(0, Math.max(at, 0)).filter((a) => !a.startsWith("-"));
    return `invalid argument ${choice[2]} for "${[program, ...path].join(" ")}"`;
  }
  if (choice)
    return `invalid argument ${choice[2]} for "--${choice[1]}" flag: must be one of ${choice[3].replaceAll('"', "")}`;
  const required = /^Missing required arguments?: (.+)$/.exec(msg);
  if (required)
    return `required flag(s) ${required[1]
      .split(", ")
      .map((f) => `"${f}"`)
      .join(", ")} not set`;
  const bare = /^Not enough arguments following: (.+)$/.exec(msg);
  if (bare) return `flag needs an argument: --${bare[1]}`;
  return msg.replace(/\s*\n\s*/g, " ");
}

/**
 * cobra's words for a leaf given `extra` arguments beyond those its declaration takes (yargs' strict mode calls
 * each an unknown argument). A command taking none reads the extra word as a command, as cobra's NoArgs does.
 */
function tooManyArgs(command: string, extra: number): string | undefined {
  const required = command.match(/<[^>]+>/g)?.length ?? 0;
  const optional = command.match(/\[[^\]]+\]/g)?.length ?? 0;
  const taken = required + optional;
  if (taken === 0 || command.includes("..")) return undefined;
  const received = taken + extra;
  if (optional === 0) return `accepts ${required} arg(s), received ${received}`;
  if (required === 0) return `accepts at most ${optional} arg(s), received ${received}`;
  return `accepts between ${required} and ${taken} arg(s), received ${received}`;
}
