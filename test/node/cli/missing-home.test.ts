import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { chaind } from "../helpers/chaind-process.js";

/** Issue 32: a --home that does not exist is an error, not an empty keyring or a stranger's node on localhost. */
describe("a --home that does not exist", () => {
  const dir = mkdtempSync(join(tmpdir(), "missing-home-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("fails reads of keys and of the node with one line, exit 1, creating nothing; commands that make a home still make it", async () => {
    const missing = join(dir, "typo");
    const expected = `Error: home folder ${missing} does not exist (--home): create it with init or testnet, or name another`;
    const [keys, keysEq, balances] = await Promise.all([
      chaind(["keys", "list", "--home", missing]),
      chaind(["keys", "list", `--home=${missing}`]),
      chaind(["query", "bank", "balances", "sdk1004kzj3m7v26j97rct44yjnwpl54k7da4mfsu9", "--home", missing]),
    ]);
    for (const r of [keys, keysEq, balances]) {
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(expected);
    }
    expect(existsSync(missing)).toBe(false);

    const made = join(dir, "new");
    const add = await chaind([
      "keys",
      "add",
      "k",
      "--home",
      made,
      "--keyring-backend",
      "test",
      "--output",
      "json",
    ]);
    expect(add.exitCode, add.stderr).toBe(0);
    expect(existsSync(join(made, "keyring-test"))).toBe(true);
  }, 60_000);
});
