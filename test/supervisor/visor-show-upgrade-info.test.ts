import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, VISOR, visorHome } from "./visor-home.js";

describe("visor show-upgrade-info", () => {
  let h: ReturnType<typeof visorHome>;
  beforeEach(() => {
    h = visorHome();
  });
  afterEach(() => h.cleanup());

  it("prints the file byte for byte as the node wrote it, and fails when there is none", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const file = join(h.home, "data", "upgrade-info.json");
    const missing = await h.visor(["show-upgrade-info"]);
    expect(missing.exitCode).not.toBe(0);
    expect(missing.stdout).toBe("");
    expect(missing.stderr.trim().split("\n")).toEqual([
      `Error: failed to read upgrade-info.json: ${file}: no such file`,
    ]);
    // Key order, spacing, a field visor does not know, no final newline: all kept.
    const written =
      '{"name":"v2 – ünïcode","time":"0001-01-01T00:00:00Z", "height":5,"info":"{}" ,"extra":[1]}';
    mkdirSync(join(h.home, "data"), { recursive: true });
    writeFileSync(file, written);
    const shown = await execa("node", [VISOR, "show-upgrade-info"], {
      env: h.env,
      reject: false,
      encoding: "buffer",
      stripFinalNewline: false,
    });
    expect(shown.exitCode).toBe(0);
    expect(Buffer.from(shown.stdout).equals(Buffer.from(written))).toBe(true);
    rmSync(file);
    writeFileSync(file, "");
    const empty = await execa("node", [VISOR, "show-upgrade-info"], { env: h.env, reject: false });
    expect(empty.exitCode).toBe(0);
    expect(empty.stdout).toBe("");
  });
});
