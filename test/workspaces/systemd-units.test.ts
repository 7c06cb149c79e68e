import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const DOCS = ["docs/OPERATIONS.md"];

/** The units the docs show, by ```ini block: a `# /etc/systemd/system/<name>` line starts each one. */
function unitBlocks(doc: string): { name: string; text: string }[][] {
  return [...doc.matchAll(/```ini\n([\s\S]*?)```/g)]
    .map((block) =>
      block[1].split(/^(?=# \/etc\/systemd\/system\/)/m).flatMap((part) => {
        const name = /^# \/etc\/systemd\/system\/(\S+\.service)$/m.exec(part)?.[1];
        return name ? [{ name, text: part }] : [];
      }),
    )
    .filter((units) => units.length > 0);
}

/**
 * The systemd units in the docs as systemd reads them. The binaries they start are not installed here, so each
 * `ExecStart=` program is replaced by /bin/true (systemd-analyze checks it is executable); every other line is
 * verified as written, and any warning (an unknown key, a bad value) fails the test.
 */
const analyzer = spawnSync("systemd-analyze", ["--version"]).status === 0;
if (!analyzer)
  console.log("skipping the systemd unit check: systemd-analyze is not installed (.ci/run installs it)");

describe.skipIf(!analyzer)("the systemd units in the docs", () => {
  it("pass systemd-analyze verify without a warning", async () => {
    const dir = mkdtempSync(join(tmpdir(), "units-"));
    try {
      const blocks = DOCS.flatMap((d) => unitBlocks(readFileSync(join(REPO, d), "utf8")));
      const units = blocks.flat();
      expect(units.map((u) => u.name)).toEqual(
        expect.arrayContaining(["chaind.service", "cometbft.service", "visor-node0.service"]),
      );
      // The units of one block go together (one may require another), each block in a folder of its own.
      for (const [i, block] of blocks.entries()) {
        const folder = join(dir, String(i));
        mkdirSync(folder);
        const files = block.map((u) => {
          const file = join(folder, u.name);
          writeFileSync(file, u.text.replace(/^(ExecStart=)\S+/gm, "$1/bin/true"));
          return file;
        });
        const r = await execa("systemd-analyze", ["verify", "--man=no", ...files], { reject: false });
        expect(`${r.stdout}${r.stderr}`.trim(), files.join(" ")).toBe("");
        expect(r.exitCode, files.join(" ")).toBe(0);
      }
      const visor = units.find((u) => u.text.includes("visor run start") && u.text.includes("[Install]"));
      expect(visor?.text).toMatch(/^RestartPreventExitStatus=70$/m);
      expect(visor?.text).toMatch(/^Environment=PATH=/m);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
