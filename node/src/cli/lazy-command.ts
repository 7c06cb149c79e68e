import type { Argv, CommandModule } from "yargs";
import type { ChainProgram } from "./chain-program.js";
import type { CommandEntry } from "./chaind-commands.js";
import type { GlobalArgs } from "./global-options.js";

/**
 * A command yargs lists by its entry and loads only when it runs: yargs calls a command's builder (which may
 * return a promise) only for the command it matched, so parsing, help and errors stay exactly yargs'.
 */
export function lazyCommand(entry: CommandEntry, program: ChainProgram): CommandModule<GlobalArgs, never> {
  let loaded: Promise<CommandModule<GlobalArgs, never>> | undefined;
  const load = () => {
    loaded ??= entry.load(program);
    return loaded;
  };
  return {
    command: entry.command,
    describe: entry.describe,
    aliases: entry.aliases,
    builder: (async (y: Argv<GlobalArgs>, helpOrVersionSet: boolean) => {
      const { builder } = await load();
      if (typeof builder === "function")
        return (await (builder as (y: Argv<GlobalArgs>, h: boolean) => unknown)(y, helpOrVersionSet)) ?? y;
      return builder ? y.options(builder as never) : y;
    }) as never,
    handler: async (args) => {
      await (await load()).handler(args);
    },
  };
}
