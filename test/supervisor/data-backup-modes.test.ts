import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backupData, restoreDataBackup } from "../../supervisor/src/upgrade/data-backup.js";

const modeOf = (p: string) => statSync(p).mode & 0o7777;

/** The modes of a data folder as a node that guards its keys sets them: nothing readable by others. */
const LAYOUT: [rel: string, mode: number][] = [
  ["", 0o700],
  ["application.db", 0o700],
  ["application.db/000005.ldb", 0o600],
  ["application.db/CURRENT", 0o600],
  ["priv_validator_state.json", 0o600],
  ["snapshots", 0o750],
];

describe("a data backup keeps the permissions of what it backs up", () => {
  let root: string;
  let data: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-backup-modes-"));
    data = join(root, "data");
    mkdirSync(join(data, "application.db"), { recursive: true });
    mkdirSync(join(data, "snapshots"));
    for (const [rel] of LAYOUT.filter(([rel]) => rel.includes(".") && rel !== "application.db"))
      writeFileSync(join(data, rel), `${rel}\n`);
    for (const [rel, mode] of LAYOUT) chmodSync(join(data, rel), mode);
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const expectModes = (dir: string) => {
    for (const [rel, mode] of LAYOUT)
      expect({ rel, mode: modeOf(join(dir, rel)).toString(8) }).toEqual({ rel, mode: mode.toString(8) });
  };

  it("backs up a 0700 data folder with 0600 files as 0700 and 0600, folders and files, empty ones too", () => {
    const { dir } = backupData(data, join(root, "backups"), { keep: 1 }, { logger: silentLogger });
    expectModes(dir);
    expect(readFileSync(join(dir, "application.db/CURRENT"), "utf8")).toBe("application.db/CURRENT\n");
  });

  it("restores a backup (rollback) with those modes", () => {
    const { dir } = backupData(data, join(root, "backups"), { keep: 1 }, { logger: silentLogger });
    writeFileSync(join(data, "application.db/CURRENT"), "migrated\n");
    restoreDataBackup(dir, data, {}, { logger: silentLogger });
    expectModes(data);
    expect(readFileSync(join(data, "application.db/CURRENT"), "utf8")).toBe("application.db/CURRENT\n");
  });
});
