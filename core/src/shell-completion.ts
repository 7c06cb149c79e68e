/** The shells `<program> completion <shell>` writes a script for. */
export const COMPLETION_SHELLS = ["bash", "zsh", "fish"] as const;
export type CompletionShell = (typeof COMPLETION_SHELLS)[number];

/**
 * The hidden command yargs' `.completion()` is registered under: a program registers it only to answer
 * `--get-yargs-completions`, which the scripts below call; `completion <shell>` is the program's own command.
 */
export const YARGS_COMPLETION_HOOK = "__yargs_completion_script";

/**
 * A completion script for `program` (on the PATH) in `shell`: at each TAB it asks the program for the commands
 * and flags that fit the words typed so far (yargs' `--get-yargs-completions`), so the script never goes stale
 * as commands change. The word being typed is passed only when it is a flag: yargs lists a level's commands for
 * an empty word, and the shell keeps those that start with what was typed. SHELL tells yargs how to format.
 */
export function completionScript(program: string, shell: CompletionShell): string {
  const fn = `_${program.replace(/[^A-Za-z0-9_]/g, "_")}_completions`;
  if (shell === "bash")
    return `# bash completion for ${program}: source <(${program} completion bash)
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" word=""
  [[ "$cur" == -* ]] && word="$cur"
  local IFS=$'\\n'
  COMPREPLY=($(compgen -W "$(SHELL=bash ${program} --get-yargs-completions "\${COMP_WORDS[@]:0:COMP_CWORD}" "$word" 2>/dev/null)" -- "$cur"))
}
complete -o default -F ${fn} ${program}
`;
  if (shell === "zsh")
    return `#compdef ${program}
# zsh completion for ${program}: source <(${program} completion zsh), or save it as _${program} on your fpath
${fn}() {
  local cur="\${words[CURRENT]}" word=""
  [[ "$cur" == -* ]] && word="$cur"
  local -a reply
  reply=("\${(@f)$(SHELL=zsh ${program} --get-yargs-completions "\${(@)words[1,CURRENT-1]}" "$word" 2>/dev/null)}")
  _describe 'values' reply
}
compdef ${fn} ${program}
`;
  return `# fish completion for ${program}: ${program} completion fish | source
function ${fn}
    set -l cur (commandline -ct)
    set -l word ""
    string match -q -- '-*' $cur; and set word $cur
    env SHELL=fish ${program} --get-yargs-completions (commandline -opc) $word 2>/dev/null
end
complete -c ${program} -f -a '(${fn})'
`;
}
