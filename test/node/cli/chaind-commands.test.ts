import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { standardAppDefinition } from "../../../node/src/chain/app-definition.js";
import type { ChainProgram } from "../../../node/src/cli/chain-program.js";
import { runChaindCli } from "../../../node/src/cli/chaind-cli.js";
import { CHAIND_COMMANDS } from "../../../node/src/cli/chaind-commands.js";
import { parseDirectCommand } from "../../../node/src/cli/direct-command.js";
import { chaind } from "../helpers/chaind-process.js";

const def = standardAppDefinition("chaind", "9.9.9");
const program: ChainProgram = { name: def.name, version: def.version, app: async () => def };

/** A program whose app must not be loaded: the commands that need none never call it. */
const appless = (): ChainProgram => ({
  name: "chaind",
  version: "9.9.9",
  app: () => Promise.reject(new Error("the app was loaded")),
});

describe("chaind's command list", () => {
  it("lists each command as the command itself declares it (--help shows the entry; running loads the module)", async () => {
    for (const entry of CHAIND_COMMANDS) {
      const loaded = await entry.load(program);
      expect({ command: loaded.command, describe: loaded.describe, aliases: loaded.aliases }).toEqual({
        command: entry.command,
        describe: entry.describe,
        aliases: entry.aliases,
      });
    }
  });
});

describe("commands run without yargs or the app", () => {
  afterEach(() => {
    vi.restoreAllMocks();
    process.exitCode = undefined;
  });

  it("reads only the plain forms visor runs; anything else goes to yargs", () => {
    expect(parseDirectCommand(["version", "--long", "--output", "json"])?.flags).toEqual(
      new Map<string, string | true>([
        ["long", true],
        ["output", "json"],
      ]),
    );
    expect(parseDirectCommand(["version", "-o=text"])?.flags.get("output")).toBe("text");
    expect(parseDirectCommand(["pre-upgrade", "--home", "/h"])?.flags.get("home")).toBe("/h");
    expect(parseDirectCommand(["start", "--home=/h", "--log_format", "json"])?.command).toBe("start");
    for (const argv of [
      ["version", "--help"],
      ["version", "--output", "yaml"],
      ["version", "--long=true"],
      ["version", "--home", "/a", "--home", "/b"],
      ["pre-upgrade", "--long"],
      ["pre-upgrade", "--home"],
      ["start", "--halt-height", "5"],
      ["start", "--log-level", "debug"],
      ["--home", "/h", "start"],
      ["status"],
    ])
      expect(parseDirectCommand(argv), argv.join(" ")).toBeNull();
  });

  it("version and pre-upgrade never load the app", async () => {
    const out: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    await runChaindCli(appless(), ["version", "--long", "-o", "json"]);
    expect(JSON.parse(out.join(""))).toMatchObject({ name: "chaind", version: "9.9.9" });
    const dir = mkdtempSync(join(tmpdir(), "direct-pre-upgrade-"));
    try {
      // A missing home fails the check itself (exit 30), not the loading of an app.
      const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
      await runChaindCli(appless(), ["pre-upgrade", "--home", join(dir, "missing")]);
      expect(process.exitCode).toBe(30);
      expect(String(err.mock.calls[0][0])).toMatch(/^Error: pre-upgrade: /);
      expect(String(err.mock.calls[0][0])).not.toMatch(/app was loaded/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a command fails the same way without the app when its program and app disagree on the version", async () => {
    const err = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    await runChaindCli({ ...program, version: "1.0.0" }, ["start", "--home", "/nonexistent"]);
    expect(String(err.mock.calls[0][0])).toMatch(/program says chaind 1\.0\.0, its app chaind 9\.9\.9/);
  });

  it("the direct path and yargs print the same (chaind's built binary, both forms)", async () => {
    const direct = await chaind(["version", "--long", "--output", "json"]);
    const viaYargs = await chaind(["--log_format", "plain", "version", "--long", "--output", "json"]);
    expect(direct.exitCode).toBe(0);
    expect(viaYargs.exitCode).toBe(0);
    expect(direct.stdout).toBe(viaYargs.stdout);
  });
});
