import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHAIND_BIN, chaind } from "../helpers/chaind-process.js";

const hasShell = (shell: string) => spawnSync(shell, ["-c", "exit 0"]).status === 0;
const missingShells = ["zsh", "fish"].filter((s) => !hasShell(s));
if (missingShells.length)
  console.warn(
    `skipping the ${missingShells.join(" and ")} completion tests: not installed (apt-get install ${missingShells.join(" ")})`,
  );

/** Issue 32: `chaind completion bash|zsh|fish` prints a script that completes commands and flags. */
describe("chaind completion", () => {
  let dir: string;
  let script: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "shell-completion-"));
    // The script calls `chaind` from the PATH, as an installed binary is.
    const bin = join(dir, "bin");
    execFileSync("mkdir", ["-p", bin]);
    writeFileSync(join(bin, "chaind"), `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_BIN}" "$@"\n`);
    chmodSync(join(bin, "chaind"), 0o755);
    for (const shell of ["bash", "zsh", "fish"]) {
      const r = await chaind(["completion", shell]);
      expect(r.exitCode, r.stderr).toBe(0);
      writeFileSync(join(dir, `chaind.${shell}`), r.stdout);
    }
    script = join(dir, "chaind.bash");
  });
  const withBin = () => ({ ...process.env, PATH: `${join(dir, "bin")}:${process.env.PATH}` });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** What a real bash offers for `line<TAB>`, with the script sourced: `complete -p` and then each candidate. */
  function bashComplete(line: string): { registered: string; offered: string[] } {
    const words = line.split(" ");
    const out = execFileSync(
      "bash",
      [
        "-c",
        [
          `source ${JSON.stringify(script)}`,
          "complete -p chaind",
          `COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(" ")}); COMP_CWORD=${words.length - 1}`,
          `COMP_LINE=${JSON.stringify(line)}; COMP_POINT=${line.length}`,
          "_chaind_completions",
          // biome-ignore lint/suspicious/noTemplateCurlyInString: a bash expansion, not a template
          'printf "%s\\n" "${COMPREPLY[@]}"',
        ].join("\n"),
      ],
      { env: withBin(), encoding: "utf8" },
    );
    const [registered, ...offered] = out.trim().split("\n");
    return { registered, offered: offered.filter(Boolean) };
  }

  it("bash: registers the function for chaind and completes chaind q<TAB> to query, a group's commands, a flag", () => {
    const q = bashComplete("chaind q");
    expect(q.registered).toBe("complete -o default -F _chaind_completions chaind");
    expect(q.offered).toEqual(["query"]);
    expect(bashComplete("chaind query ba").offered).toEqual(["bank"]);
    expect(bashComplete("chaind query bank ba").offered.sort()).toEqual(["balance", "balances"]);
    expect(bashComplete("chaind start --pruning-k").offered).toEqual(["--pruning-keep-recent"]);
    expect(bashComplete("chaind query tx --ty").offered).toEqual(["--type"]);
  });

  it("zsh and fish scripts name their completion hooks; an unknown shell is refused in cobra's words", async () => {
    const [zsh, fish, bad] = await Promise.all([
      chaind(["completion", "zsh"]),
      chaind(["completion", "fish"]),
      chaind(["completion", "tcsh"]),
    ]);
    expect(zsh.stdout).toMatch(/^#compdef chaind\n/);
    expect(zsh.stdout).toContain("compdef _chaind_completions chaind");
    expect(fish.stdout).toContain("complete -c chaind -f -a '(_chaind_completions)'");
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe('Error: invalid argument "tcsh" for "chaind completion"');
  });

  it.skipIf(missingShells.includes("fish"))(
    "fish: complete -C offers query for chaind q, with its description",
    () => {
      const out = execFileSync(
        "fish",
        ["-c", `source ${dir}/chaind.fish; complete -C "chaind q"; complete -C "chaind start --pruning-k"`],
        { env: withBin(), encoding: "utf8" },
      );
      expect(out.trim().split("\n")).toEqual([
        "query\tQuerying subcommands",
        expect.stringMatching(/^--pruning-keep-recent\t/),
      ]);
    },
  );

  it.skipIf(missingShells.includes("zsh"))(
    "zsh: the function hands _describe the candidates for the words typed",
    () => {
      // _describe and compdef need an interactive completion system; stand-ins print what the script hands them.
      const out = execFileSync(
        "zsh",
        [
          "-c",
          `compdef() { :; }; _describe() { print -l -- "\${(@P)2}"; }; source ${dir}/chaind.zsh
words=(chaind ""); CURRENT=2; _chaind_completions`,
        ],
        { env: withBin(), encoding: "utf8" },
      );
      expect(out).toMatch(/^query:Querying subcommands$/m);
      expect(out).toMatch(/^start:Run the full node$/m);
    },
  );
});
