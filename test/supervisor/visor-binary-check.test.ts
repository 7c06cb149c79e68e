import { chmodSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CHAIND_CLI } from "@chaind/harness/local-testnet";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, visorHome } from "./visor-home.js";

const REPO = join(import.meta.dirname, "../..");

/**
 * Issue 32: `visor init` and `add-upgrade` run the copied binary's `version` and refuse, in one line, one that
 * does not run where it lands. Before, the 50-byte npm launcher was installed and failed only when visor
 * started it (the genesis binary) or at the halt (an upgrade's).
 */
describe("visor init and add-upgrade install only a binary that runs", { timeout: 60_000 }, () => {
  let h: ReturnType<typeof visorHome>;
  const cosmovisor = (...p: string[]) => join(h.home, "cosmovisor", ...p);
  beforeEach(() => {
    h = visorHome();
  });
  afterEach(() => h.cleanup());

  it("refuses node_modules/.bin/chaind, which runs only beside its package, and installs nothing", async () => {
    const r = await h.visor(["init", join(REPO, "node_modules/.bin/chaind")]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^Error: \S+node_modules\/\.bin\/chaind does not run on its own \(`version` failed: exit status 1: Error \[ERR_MODULE_NOT_FOUND\]: Cannot find module/,
    );
    expect(existsSync(cosmovisor("genesis"))).toBe(false);
    expect(existsSync(cosmovisor("current"))).toBe(false);
  });

  it("refuses a path that does not exist, even with a genesis binary installed already", async () => {
    const missing = join(h.root, "no-such-binary");
    const first = await h.visor(["init", missing]);
    expect(first.exitCode).toBe(1);
    expect(first.stderr).toBe(`Error: no such file: ${missing}`);
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const again = await h.visor(["init", missing]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe(`Error: no such file: ${missing}`);
  });

  it("takes a launcher script that runs chaind from where it is installed (a real chaind child)", async () => {
    const launcher = join(h.root, "chaind");
    writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_CLI}" "$@"\n`);
    chmodSync(launcher, 0o755);
    const r = await h.visor(["init", launcher]);
    expect(r.exitCode, r.all).toBe(0);
    expect(existsSync(cosmovisor("genesis", "bin", "fake"))).toBe(true);
    // No staging folder is left beside bin/.
    expect(readdirSync(cosmovisor("genesis"))).toEqual(["bin"]);
  });

  it("add-upgrade refuses node/bin/chaind.js copied alone, or one that floods its output; nothing is queued", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const copied = await h.visor([
      "add-upgrade",
      "v2",
      join(REPO, "node/bin/chaind.js"),
      "--upgrade-height",
      "9",
    ]);
    expect(copied.exitCode).toBe(1);
    expect(copied.stderr).toMatch(
      /^Error: \S+node\/bin\/chaind\.js does not run on its own .*ERR_MODULE_NOT_FOUND/,
    );
    expect(copied.stderr.split("\n")).toHaveLength(1);
    // No upgrade folder without its binary (the halt would refuse it), no batch entry.
    expect(existsSync(cosmovisor("upgrades", "v2"))).toBe(false);
    expect(existsSync(join(h.home, "data", "upgrade-info.json.batch"))).toBe(false);

    const chatty = join(h.root, "chatty");
    writeFileSync(chatty, "#!/bin/sh\nyes 'not a version'\n", { mode: 0o755 });
    const flood = await h.visor(["add-upgrade", "v2", chatty]);
    expect(flood.exitCode).toBe(1);
    expect(flood.stderr).toContain("does not run on its own (`version` failed: it printed more than 64 KiB)");
    expect(existsSync(cosmovisor("upgrades", "v2"))).toBe(false);

    const added = await h.visor(["add-upgrade", "v2", fakeBinary(h.root, "v2"), "--upgrade-height", "9"]);
    expect(added.exitCode, added.all).toBe(0);
    expect(readdirSync(cosmovisor("upgrades", "v2"))).toEqual(["bin"]);
  });
});
