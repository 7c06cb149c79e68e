import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setTomlLine } from "../../../node/src/config/toml-edit.js";
import { chaind } from "../helpers/chaind-process.js";

/** The lines of `after` that differ from `before`'s, with their numbers: an in-place edit changes exactly one. */
function changedLines(before: string, after: string): string[] {
  const a = before.split("\n");
  const b = after.split("\n");
  expect(b).toHaveLength(a.length);
  return b.flatMap((line, i) => (line === a[i] ? [] : [`${i}: ${line}`]));
}

describe("chaind config get|set", () => {
  let dir: string;
  let home: string;
  const file = (name: string) => join(home, "config", name);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chaind-config-"));
    home = join(dir, "home");
    const init = await chaind(["init", "node0", "--chain-id", "config-chain", "--home", home]);
    expect(init.exitCode, init.stderr).toBe(0);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const config = (...args: string[]) => chaind(["config", ...args, "--home", home]);

  it.each([
    ["app", "api.enable", "true", "app.toml", /^enable = true$/],
    ["app", "minimum-gas-prices", "0.5stake", "app.toml", /^minimum-gas-prices = "0\.5stake"$/],
    ["app", "pruning-keep-recent", "100", "app.toml", /^pruning-keep-recent = "100"$/],
    ["config", "consensus.timeout_commit", "1.5s", "config.toml", /^timeout_commit = "1\.5s"$/],
    ["config", "moniker", "renamed", "config.toml", /^moniker = "renamed"$/],
    ["client", "chain-id", "other-chain", "client.toml", /^chain-id = "other-chain"$/],
  ])(
    "set %s %s %s then get round-trips, changing only that line of %s",
    async (which, key, value, name, line) => {
      const before = readFileSync(file(name), "utf8");
      const set = await config("set", which, key, value);
      expect(set.exitCode, set.stderr).toBe(0);
      const after = readFileSync(file(name), "utf8");
      const changed = changedLines(before, after);
      expect(changed).toHaveLength(1);
      expect(changed[0].replace(/^\d+: /, "")).toMatch(line);
      const get = await config("get", which, key);
      expect(get.exitCode, get.stderr).toBe(0);
      expect(get.stdout).toBe(value);
    },
  );

  it("get prints the default of a key the file does not set", async () => {
    const path = file("app.toml");
    const text = readFileSync(path, "utf8");
    writeFileSync(path, text.replace(/^halt-height = .*$/m, ""));
    const get = await config("get", "app", "halt-height");
    expect(get.stdout).toBe("0");
    const set = await config("set", "app", "halt-height", "250");
    expect(set.exitCode, set.stderr).toBe(0);
    expect((await config("get", "app", "halt-height")).stdout).toBe("250");
  });

  it("an unknown key or a bad value is a one-line error naming the file and the key, and the file stays", async () => {
    const before = readFileSync(file("config.toml"), "utf8");
    const cases: [string[], RegExp][] = [
      [["set", "config", "consensus.nope", "1"], /^Error: .*config\.toml: consensus\.nope: unknown key/],
      [["get", "app", "api.nope"], /^Error: .*app\.toml: api\.nope: unknown key/],
      [
        ["set", "config", "consensus.timeout_commit", "soon"],
        /^Error: .*config\.toml: consensus\.timeout_commit: expected a Go duration .*, got "soon"$/,
      ],
      [
        ["set", "config", "rpc.max_body_bytes", "0"],
        /^Error: .*config\.toml: rpc\.max_body_bytes: expected a whole number ≥ 1, got "0"$/,
      ],
      [
        ["set", "config", "consensus.create_empty_blocks", "maybe"],
        /^Error: .*config\.toml: consensus\.create_empty_blocks: expected true or false/,
      ],
    ];
    for (const [args, message] of cases) {
      const r = await config(...args);
      expect(r.exitCode, args.join(" ")).not.toBe(0);
      expect(r.stderr.trim().split("\n"), args.join(" ")).toHaveLength(1);
      expect(r.stderr.trim(), args.join(" ")).toMatch(message);
    }
    expect(readFileSync(file("config.toml"), "utf8")).toBe(before);
  });
});

describe("setTomlLine", () => {
  const text = ["# top", 'a = "1"', "", "[s]", "# about x", "x = 1", "", "[t]", "y = 2", ""].join("\n");

  it("adds a missing key at the end of its section, or a missing section at the end", () => {
    expect(setTomlLine(text, null, "b", '"2"')).toBe(
      ["# top", 'a = "1"', "", 'b = "2"', "", "[s]", "# about x", "x = 1", "", "[t]", "y = 2", ""].join("\n"),
    );
    expect(setTomlLine(text, "s", "z", "3")).toBe(
      ["# top", 'a = "1"', "", "[s]", "# about x", "x = 1", "z = 3", "", "[t]", "y = 2", ""].join("\n"),
    );
    expect(setTomlLine(text, "u", "w", "4")).toBe(`${text.trimEnd()}\n\n[u]\nw = 4\n`);
  });

  it("replaces the key of the right section only", () => {
    const two = ["[s]", "enable = false", "[t]", "enable = false", ""].join("\n");
    expect(setTomlLine(two, "t", "enable", "true")).toBe(
      ["[s]", "enable = false", "[t]", "enable = true", ""].join("\n"),
    );
  });
});
