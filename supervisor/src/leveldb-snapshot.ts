import {
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { Level } from "level";

/** Tables are never rewritten once written (LevelDB and goleveldb alike): shared by hard link. */
const TABLE = /\.(ldb|sst)$/;
/** Copying tables is the fallback across file systems; past this much, the snapshot is refused. */
const MAX_COPIED_TABLE_BYTES = 512 * 1024 ** 2;

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** Links (or, across file systems, copies) a table; a table a compaction removed meanwhile is skipped. */
function shareTable(src: string, dst: string, budget: { bytes: number }): void {
  try {
    linkSync(src, dst);
    return;
  } catch (e) {
    if (errno(e) === "ENOENT") return;
    if (errno(e) !== "EXDEV" && errno(e) !== "EPERM") throw e;
  }
  budget.bytes -= statSync(src).size;
  if (budget.bytes < 0)
    throw new Error(`the database is on another file system and larger than ${MAX_COPIED_TABLE_BYTES} bytes`);
  copyFileSync(src, dst);
}

function copyIfPresent(src: string, dst: string): void {
  try {
    copyFileSync(src, dst);
  } catch (e) {
    if (errno(e) !== "ENOENT") throw e;
  }
}

/**
 * Reads one key of a LevelDB that its node holds open and locked, without opening or changing it: the files
 * are snapshotted into `scratch` (tables first, then CURRENT and the manifest it names, then the logs, so
 * every table the copied manifest can name was linked before it, except ones made in between, which fail the
 * open) and the copy is opened. A log cut mid-record loses only its last write, so a snapshot is never ahead
 * of the live database. `scratch` is removed afterwards.
 */
export async function readSnapshotKey(
  dbDir: string,
  key: Uint8Array,
  scratch: string,
): Promise<Uint8Array | undefined> {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    const budget = { bytes: MAX_COPIED_TABLE_BYTES };
    for (const f of readdirSync(dbDir))
      if (TABLE.test(f)) shareTable(join(dbDir, f), join(scratch, f), budget);
    const current = readFileSync(join(dbDir, "CURRENT"), "utf8");
    const manifest = current.trim();
    if (!/^MANIFEST-\d+$/.test(manifest)) throw new Error(`CURRENT names ${JSON.stringify(manifest)}`);
    copyFileSync(join(dbDir, manifest), join(scratch, manifest));
    for (const f of readdirSync(dbDir))
      if (f.endsWith(".log")) copyIfPresent(join(dbDir, f), join(scratch, f));
    // Written from what was read, so it names the manifest copied.
    writeFileSync(join(scratch, "CURRENT"), current);
    const db = new Level<Uint8Array, Uint8Array>(scratch, {
      createIfMissing: false,
      keyEncoding: "view",
      valueEncoding: "view",
    });
    await db.open();
    try {
      return await db.get(key);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
