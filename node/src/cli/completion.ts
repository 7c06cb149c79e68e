import { COMPLETION_SHELLS, type CompletionShell, completionScript } from "@chaind/core/shell-completion";
import type { CommandModule } from "yargs";
import type { GlobalArgs } from "./global-options.js";

/** `chaind completion bash|zsh|fish`: the shell script that completes this program's commands and flags. */
export function completionCommand(
  program: string,
): CommandModule<GlobalArgs, GlobalArgs & { shell: string }> {
  return {
    command: "completion <shell>",
    describe: "Generate the autocompletion script for the specified shell",
    builder: (y) => y.positional("shell", { type: "string", choices: COMPLETION_SHELLS }) as never,
    handler: (a) => {
      process.stdout.write(completionScript(program, a.shell as CompletionShell));
    },
  };
}
