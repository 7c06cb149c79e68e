import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { VISOR } from "./visor-home.js";

/** Issue 32: `visor completion bash` completes visor's commands and flags in a real bash, as chaind's does. */
describe("visor completion", () => {
  const dir = mkdtempSync(join(tmpdir(), "visor-completion-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the bash script completes visor add<TAB> and a flag of add-upgrade", () => {
    mkdirSync(join(dir, "bin"));
    writeFileSync(join(dir, "bin", "visor"), `#!/bin/sh\nexec "${process.execPath}" "${VISOR}" "$@"\n`);
    chmodSync(join(dir, "bin", "visor"), 0o755);
    const env = { ...process.env, PATH: `${join(dir, "bin")}:${process.env.PATH}` };
    writeFileSync(
      join(dir, "visor.bash"),
      execFileSync("visor", ["completion", "bash"], { env, encoding: "utf8" }),
    );
    const complete = (words: string[]) =>
      execFileSync(
        "bash",
        [
          "-c",
          `source visor.bash; complete -p visor; COMP_WORDS=(${words.join(" ")}); COMP_CWORD=${words.length - 1}; _visor_completions; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { env, cwd: dir, encoding: "utf8" },
      )
        .trim()
        .split("\n");
    const [registered, ...adds] = complete(["visor", "add"]);
    expect(registered).toBe("complete -o default -F _visor_completions visor");
    expect(adds.sort()).toEqual(["add-batch-upgrade", "add-upgrade"]);
    expect(complete(["visor", "add-upgrade", "--upgrade-h"]).slice(1)).toEqual(["--upgrade-height"]);
  });
});
