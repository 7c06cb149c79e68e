import { randomFillSync } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { execa } from "execa";
import { Level } from "level";
import { backupData } from "visor/data-backup";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { folderSize } from "./folder-size.js";
import { scratchDir } from "./scratch-dir.js";

/** Fills a LevelDB with ~`mb` MiB of incompressible values, so the folder is mostly immutable .ldb tables. */
async function fillLevelDb(path: string, mb: number): Promise<void> {
  const db = new Level<string, Uint8Array>(path, { valueEncoding: "view" });
  await db.open();
  try {
    const valueBytes = 16 * 1024;
    const perBatch = 256;
    const batches = Math.ceil((mb * 1024 * 1024) / (valueBytes * perBatch));
    for (let b = 0; b < batches; b++) {
      const ops = [];
      for (let i = 0; i < perBatch; i++) {
        const key = `k${String(b * perBatch + i).padStart(10, "0")}`;
        ops.push({ type: "put" as const, key, value: randomFillSync(new Uint8Array(valueBytes)) });
      }
      await db.batch(ops);
    }
  } finally {
    await db.close();
  }
}

/**
 * Issue 8.8: visor's backup of a data folder of real LevelDB tables (hard links for tables, copies for the rest,
 * checked) against `cp -a` of the same folder: a full copy, what cosmovisor's backup does.
 */
export async function backup(opts: BenchOptions): Promise<BenchSection> {
  const dir = scratchDir("backup");
  try {
    const data = join(dir.path, "home", "data");
    await fillLevelDb(join(data, "application.db"), opts.backupMb);
    const size = folderSize(data);
    const cp: number[] = [];
    const visor: number[] = [];
    for (let i = 0; i < opts.runs; i++) {
      const copyDest = join(dir.path, "cp-copy");
      const t0 = performance.now();
      const r = await execa("cp", ["-a", data, copyDest], { reject: false });
      cp.push(performance.now() - t0);
      if (r.exitCode !== 0) throw new Error(`cp -a failed: ${r.stderr}`);
      rmSync(copyDest, { recursive: true, force: true });
      const backups = join(dir.path, "backups");
      const t1 = performance.now();
      backupData(data, backups, { keep: 0 }, { logger: silentLogger });
      visor.push(performance.now() - t1);
      rmSync(backups, { recursive: true, force: true });
    }
    const full = figure("cp -a (full copy)", "ms", cp);
    return {
      id: "backup",
      title: "Backup",
      params: {
        dataMiB: Math.round(size.bytes / 1024 / 1024),
        files: size.files,
        runs: opts.runs,
      },
      figures: [full, figure("visor backupData (hard links + copies, checked)", "ms", visor, full)],
      notes: [
        "The folder is in the page cache for both (it was just written); a cold-cache full copy is slower still, the hard links are not.",
        "Ratio is visor / cp -a: the share of a full copy's time visor's backup takes.",
      ],
    };
  } finally {
    dir.remove();
  }
}
