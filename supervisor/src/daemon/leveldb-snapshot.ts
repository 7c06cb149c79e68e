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
import { VisorError } from "../errors/visor-error.js";
import { readManifest } from "./leveldb-manifest.js";

/** Copying tables is the fallback when the database folder is on another file system; past this, refused. */
const MAX_COPIED_TABLE_BYTES = 512 * 1024 ** 2;
/** A manifest holds one edit per flush or compaction since the node last started: far below this. */
const MAX_MANIFEST_BYTES = 128 * 1024 ** 2;
/** A snapshot that a compaction or a log switch overtook is made again, this many times at most. */
const ATTEMPTS = 5;

const FILE = /^(\d+)\.(ldb|sst|log)$/;

const errno = (e: unknown) => (e as NodeJS.ErrnoException).code;

/** Thrown when the node changed its files while the snapshot was made: another try will see the new state. */
class Overtaken extends Error {}

/** Hard-links (or, across file systems, copies) a table; a table gone meanwhile means the snapshot is stale. */
function shareTable(src: string, dst: string, budget: { bytes: number; limit: number }): void {
  try {
    linkSync(src, dst);
    return;
  } catch (e) {
    if (errno(e) === "ENOENT") throw new Overtaken(`${src} was compacted away`);
    if (errno(e) !== "EXDEV" && errno(e) !== "EPERM") throw e;
  }
  budget.bytes -= statSync(src).size;
  if (budget.bytes < 0)
    throw new VisorError(
      "HOME_HEIGHT",
      `the database is on another file system than ${dst} and larger than ${budget.limit} bytes`,
    );
  copyFileSync(src, dst);
}

function copyLog(src: string, dst: string): void {
  try {
    copyFileSync(src, dst);
  } catch (e) {
    if (errno(e) === "ENOENT") throw new Overtaken(`${src} was flushed into a table and removed`);
    throw e;
  }
}

/**
 * Fills `scratch` with a copy of the database as its MANIFEST describes it, sharing no file the node may still
 * write: only the live tables the manifest names are hard-linked (LevelDB and goleveldb never change a table
 * once it is in the manifest, and every such table is numbered below the manifest's next file number, where the
 * copy's own new files start; a table the node is still writing is not in the manifest yet and stays out). The
 * manifest, CURRENT and the logs the manifest still needs are copied. A log copied mid-append loses at most its
 * last write, so the copy is never ahead of the database.
 */
function snapshot(dbDir: string, scratch: string, copyLimit: number): void {
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const current = readFileSync(join(dbDir, "CURRENT"), "latin1");
  const manifestName = current.trim();
  if (!/^MANIFEST-\d+$/.test(manifestName))
    throw new VisorError(
      "HOME_HEIGHT",
      `${join(dbDir, "CURRENT")} names ${JSON.stringify(manifestName.slice(0, 80))}`,
    );
  let manifest: Buffer;
  try {
    if (statSync(join(dbDir, manifestName)).size > MAX_MANIFEST_BYTES)
      throw new VisorError(
        "HOME_HEIGHT",
        `${join(dbDir, manifestName)} is larger than ${MAX_MANIFEST_BYTES} bytes`,
      );
    manifest = readFileSync(join(dbDir, manifestName));
  } catch (e) {
    if (errno(e) === "ENOENT") throw new Overtaken(`${manifestName} was replaced`);
    throw e;
  }
  const state = readManifest(manifest, join(dbDir, manifestName));
  const tables = new Map<number, string>();
  const logs = new Map<number, string>();
  for (const f of readdirSync(dbDir)) {
    const m = FILE.exec(f);
    if (!m) continue;
    if (m[2] === "log") logs.set(Number(m[1]), f);
    // LevelDB opens `.ldb` before the `.sst` of older writers.
    else if (m[2] === "ldb" || !tables.has(Number(m[1]))) tables.set(Number(m[1]), f);
  }
  const budget = { bytes: copyLimit, limit: copyLimit };
  for (const n of state.tables) {
    const name = tables.get(n);
    if (!name) throw new Overtaken(`table ${n} was compacted away`);
    shareTable(join(dbDir, name), join(scratch, name), budget);
  }
  // The log the manifest names is removed only after a newer manifest edit: gone means the copy is stale.
  if (state.logNumber !== 0 && !logs.has(state.logNumber))
    throw new Overtaken(`log ${state.logNumber} was flushed into a table`);
  for (const [n, name] of logs)
    if (n >= state.logNumber || (n !== 0 && n === state.prevLogNumber))
      copyLog(join(dbDir, name), join(scratch, name));
  // The bytes parsed above, so the copy opens to the state whose tables were linked.
  writeFileSync(join(scratch, manifestName), manifest);
  writeFileSync(join(scratch, "CURRENT"), `${manifestName}\n`);
}

/**
 * Reads one key of a LevelDB that its node holds open and locked, never opening the node's database and never
 * writing into a file the node owns: the database is snapshotted into `scratch` (see `snapshot`), the copy is
 * opened there (LevelDB recovers the copied logs into new files of its own), read, and removed. `scratch` must
 * be on the database's file system, so tables are linked rather than copied. A snapshot a compaction overtook
 * is made again, a few times.
 */
export async function readSnapshotKey(
  dbDir: string,
  key: Uint8Array,
  scratch: string,
): Promise<Uint8Array | undefined> {
  // Looks through one scratch folder take turns: two at once would each clear the other's copy (a probe polling
  // a running daemon and the one that looks when it exits share the home's folder).
  const previous = scratchTurns.get(scratch) ?? Promise.resolve();
  const mine = previous.then(() => readSnapshotKeyAlone(dbDir, key, scratch));
  const done = mine.then(
    () => {},
    () => {},
  );
  scratchTurns.set(scratch, done);
  try {
    return await mine;
  } finally {
    if (scratchTurns.get(scratch) === done) scratchTurns.delete(scratch);
  }
}

const scratchTurns = new Map<string, Promise<void>>();

async function readSnapshotKeyAlone(
  dbDir: string,
  key: Uint8Array,
  scratch: string,
): Promise<Uint8Array | undefined> {
  let overtaken = "";
  try {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      try {
        snapshot(dbDir, scratch, MAX_COPIED_TABLE_BYTES);
      } catch (e) {
        if (!(e instanceof Overtaken)) throw e;
        overtaken = e.message;
        continue;
      }
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
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  throw overtakenTooOften(dbDir, overtaken);
}

const overtakenTooOften = (dbDir: string, last: string) =>
  new VisorError(
    "HOME_HEIGHT",
    `${dbDir} changed under ${ATTEMPTS} snapshots in a row (the last: ${last}); the node may be compacting`,
  );

/**
 * A copy of a database its node holds open, in `dest` (see `snapshot`), that opens as the database was at one
 * moment. Tables are hard-linked; across file systems they are copied, up to `copyLimit` bytes.
 */
export function snapshotDatabase(dbDir: string, dest: string, copyLimit: number): void {
  let overtaken = "";
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    try {
      snapshot(dbDir, dest, copyLimit);
      return;
    } catch (e) {
      if (!(e instanceof Overtaken)) throw e;
      overtaken = e.message;
    }
  }
  rmSync(dest, { recursive: true, force: true });
  throw overtakenTooOften(dbDir, overtaken);
}
