import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

/**
 * The shell command blocks of a Markdown document, as doc-commands.test.ts runs them.
 *
 * A fenced block whose language is `sh`, `bash`, `shell` or `console` is a command block; in a `console` block
 * only the lines after a `$ ` prompt are commands (the others show output). An HTML comment on the line just
 * before the fence says how the block is run:
 *
 * - none: the block runs, in order with the document's other blocks, in one shell session.
 * - `<!-- not run: <why> -->`: the block is skipped, and the comment must say why.
 * - `<!-- run: node stopped -->`: the nodes that earlier blocks started are stopped first (what a reader does
 *   with Ctrl-C before commands that need the node stopped).
 * - `<!-- run: a passphrase at each prompt -->`: the commands read the same passphrase line after line, as a
 *   reader types one wherever the encrypted keyring or an export asks (stdin is empty otherwise).
 */
export interface CommandBlock {
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  /** The block's commands in order: a line with its `\` continuations, or a whole compound command. */
  commands: string[];
  run:
    | { kind: "run" }
    | { kind: "node-stopped" }
    | { kind: "passphrases" }
    | { kind: "not-run"; reason: string };
}

const COMMAND_LANGS = new Set(["sh", "bash", "shell", "console"]);
const MARKER = /^<!--\s*(not run|run)\s*:\s*(.*?)\s*-->$/;

export function commandBlocksOf(path: string): CommandBlock[] {
  const lines = readFileSync(path, "utf8").split("\n");
  const blocks: CommandBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    let end = i + 1;
    while (end < lines.length && !lines[end].startsWith(`${indent}${fence}`)) end++;
    if (COMMAND_LANGS.has(lang)) {
      const body = lines.slice(i + 1, end).map((l) => l.slice(indent.length));
      const text = lang === "console" ? body.filter((l) => l.startsWith("$ ")).map((l) => l.slice(2)) : body;
      blocks.push({
        line: i + 1,
        lang,
        commands: splitCommands(text),
        run: markerOf(path, i + 1, lines[i - 1]),
      });
    }
    i = end;
  }
  return blocks;
}

function markerOf(path: string, line: number, before: string | undefined): CommandBlock["run"] {
  const comment = before?.trim() ?? "";
  if (!comment.startsWith("<!--")) return { kind: "run" };
  const m = MARKER.exec(comment);
  if (m?.[1] === "not run" && m[2] !== "") return { kind: "not-run", reason: m[2] };
  if (m?.[1] === "run" && m[2] === "node stopped") return { kind: "node-stopped" };
  if (m?.[1] === "run" && m[2] === "a passphrase at each prompt") return { kind: "passphrases" };
  throw new Error(
    `${path}:${line}: the comment before this command block is no run marker (<!-- not run: <why> -->, ` +
      `<!-- run: node stopped --> or <!-- run: a passphrase at each prompt -->): ${comment}`,
  );
}

/** Lines joined into commands: `\` continuations, and lines added until bash reads the text as complete. */
function splitCommands(lines: string[]): string[] {
  const commands: string[] = [];
  let pending = "";
  for (const line of lines) {
    pending = pending === "" ? line : `${pending}\n${line}`;
    if (line.endsWith("\\") || !isComplete(pending)) continue;
    if (pending.trim() !== "" && !pending.trim().startsWith("#")) commands.push(pending);
    pending = "";
  }
  if (pending.trim() !== "") commands.push(pending);
  return commands;
}

function isComplete(text: string): boolean {
  try {
    execFileSync("bash", ["-n"], { input: text, stdio: ["pipe", "ignore", "ignore"] });
    return true;
  } catch {
    return false;
  }
}
