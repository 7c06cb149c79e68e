import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { create, extract, list } from "tar";
import { SnapshotError } from "./snapshot-error.js";
import { parseSnapshotMetadata, type SnapshotMetadata } from "./snapshot-metadata.js";
import type { SnapshotStore } from "./snapshot-store.js";

/**
 * One snapshot as one .tar.gz file (`snapshots dump` / `load`), flat: `metadata.json` and the chunk files
 * `0`, `1`, ... as they lie in `data/snapshots/<height>/<format>/`.
 */
const METADATA_ENTRY = "metadata.json";
const CHUNK_ENTRY = /^(0|[1-9]\d*)$/;

/** The archive file name Cosmos's `dump` writes by default: `<height>-<format>.tar.gz`. */
export const defaultArchiveName = (height: number, format: number) => `${height}-${format}.tar.gz`;

/** Writes a snapshot, verified first (a damaged one is not passed on), into one gzipped tar file. */
export async function dumpSnapshot(
  snapshots: SnapshotStore,
  meta: SnapshotMetadata,
  output: string,
): Promise<void> {
  await snapshots.verify(meta);
  const folder = dirname(snapshots.chunkPath(meta.height, meta.format, 0));
  const chunks = Array.from({ length: meta.chunks }, (_, i) => String(i));
  try {
    await create({ gzip: true, file: output, cwd: folder, portable: true }, [METADATA_ENTRY, ...chunks]);
  } catch (e) {
    rmSync(output, { force: true });
    throw new SnapshotError(`cannot write ${output}: ${(e as Error).message}`);
  }
}

/** Refuses an archive holding anything but plain files named as a snapshot's. */
async function checkArchive(file: string): Promise<void> {
  const problems: string[] = [];
  try {
    await list({
      file,
      strict: true,
      onReadEntry: (e) => {
        if (e.type !== "File" || !(e.path === METADATA_ENTRY || CHUNK_ENTRY.test(e.path)))
          problems.push(`unexpected entry ${JSON.stringify(e.path)}`);
        e.resume();
      },
    });
  } catch (e) {
    throw new SnapshotError(`cannot read snapshot archive ${file}: ${(e as Error).message}`);
  }
  if (problems.length) throw new SnapshotError(`${file} is not a snapshot archive: ${problems[0]}`);
}

/**
 * `snapshots load`: unpacks an archive beside the store, checks its metadata and every chunk, and only then
 * moves it in place. A snapshot of the same height and format already there is refused, not replaced.
 */
export async function loadSnapshot(snapshots: SnapshotStore, file: string): Promise<SnapshotMetadata> {
  if (!existsSync(file)) throw new SnapshotError(`snapshot archive ${file} does not exist`);
  await checkArchive(file);
  mkdirSync(snapshots.dir, { recursive: true });
  const staging = join(snapshots.dir, `.load-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging);
  try {
    await extract({ file, cwd: staging, strict: true });
    const metaFile = join(staging, METADATA_ENTRY);
    if (!existsSync(metaFile))
      throw new SnapshotError(`${file} is not a snapshot archive: it has no ${METADATA_ENTRY}`);
    const meta = parseSnapshotMetadata(readFileSync(metaFile, "utf8"), `${METADATA_ENTRY} in ${file}`);
    snapshots.adopt(staging, meta);
    try {
      await snapshots.verify(meta);
    } catch (e) {
      snapshots.delete(meta.height, meta.format);
      throw e;
    }
    return meta;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
