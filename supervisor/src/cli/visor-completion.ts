import {
  COMPLETION_SHELLS,
  type CompletionShell,
  completionScript,
  YARGS_COMPLETION_HOOK,
} from "@chaind/core/shell-completion";
import type { Argv } from "yargs";

/**
 * `visor completion bash|zsh|fish` on visor's command line, with the hook its scripts call at each TAB
 * (`visor --get-yargs-completions ...`).
 */
export function withCompletion<T>(y: Argv<T>): Argv<T> {
  return y.completion(YARGS_COMPLETION_HOOK, false).command(
    "completion <shell>",
    "Generate the autocompletion script for the specified shell",
    (c) => c.positional("shell", { type: "string", choices: COMPLETION_SHELLS, demandOption: true }),
    (a) => {
      process.stdout.write(completionScript("visor", a.shell as CompletionShell));
    },
  ) as unknown as Argv<T>;
}
