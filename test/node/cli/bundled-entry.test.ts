import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { CHAIND_BIN } from "../helpers/chaind-process.js";

/**
 * node/bin/chaind.js runs the bundle `npm run build` makes (scripts/bundle-chaind.ts) only when it is newer than
 * each tsc build it was made from: after `tsc -b` alone, a stale bundle would run old code. Checked on a copy of
 * the real bin in a checkout-shaped folder whose two entries say which one ran.
 */
describe("node/bin/chaind.js: the bundle, or the unbundled build when the bundle is stale or missing", () => {
  const root = mkdtempSync(join(tmpdir(), "bundled-entry-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string, mtimeSec: number) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    utimesSync(file, mtimeSec, mtimeSec);
  };
  mkdirSync(join(root, "node", "bin"), { recursive: true });
  copyFileSync(CHAIND_BIN, join(root, "node", "bin", "chaind.js"));
  write("node/package.json", '{ "type": "module" }', 1000);
  write("node/dist/cli/main.js", 'console.log("dist", process.argv.slice(2).join(" "));', 1000);
  const builds = ["node/dist/.tsbuildinfo", "core/dist/.tsbuildinfo", "proto/dist/.tsbuildinfo"];
  const run = async () => {
    const r = await execa("node", [join(root, "node", "bin", "chaind.js"), "version"], { reject: false });
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout;
  };

  it("runs the bundle when it is newer than every tsc build, else dist/", async () => {
    for (const b of builds) write(b, "{}", 2000);
    expect(await run()).toBe("dist version");

    write("node/dist/bundle/chaind.js", 'console.log("bundle", process.argv.slice(2).join(" "));', 3000);
    expect(await run()).toBe("bundle version");

    // `tsc -b` rebuilt one of the workspaces the bundle holds, and nothing bundled it since.
    for (const b of builds) {
      write(b, "{}", 4000);
      expect(await run(), b).toBe("dist version");
      write(b, "{}", 2000);
    }
    expect(await run()).toBe("bundle version");

    // A tsc build missing (say `tsc -b --clean` of one workspace) is no proof of freshness either.
    rmSync(join(root, "core", "dist", ".tsbuildinfo"));
    expect(await run()).toBe("dist version");
  });
});
