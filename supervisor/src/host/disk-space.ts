import { existsSync, lstatSync, readdirSync, statfsSync } from "node:fs";
import { dirname, join } from "node:path";

const MiB = 1024 * 1024;

/**
 * What visor leaves free on a file system it writes to, so the node beside it keeps room to commit blocks:
 * 1% of the file system, at most 64 MiB.
 */
const RESERVE_SHARE = 0.01;
const RESERVE_MAX = 64 * MiB;

/** Bytes for an operator: KiB below a MiB (a small reserve), else MiB. */
const sizeText = (bytes: number) =>
  bytes < MiB ? `${Math.ceil(bytes / 1024)} KiB` : `${(bytes / MiB).toFixed(1)} MiB`;

/** Null when `needed` more bytes fit in `dir` with the reserve left over, else why not (for an error). */
export function lackOfSpace(dir: string, needed: number): string | null {
  const s = statfsSync(dir);
  const free = s.bavail * s.bsize;
  const reserve = Math.min(RESERVE_MAX, Math.floor(s.blocks * s.bsize * RESERVE_SHARE));
  if (needed + reserve <= free) return null;
  return `${dir} has ${sizeText(free)} free, and ${sizeText(needed)} are needed plus a reserve of ${sizeText(reserve)}`;
}

/**
 * For a stream being written to `dir`, having gone from `before` to `after` bytes: once per MiB written, whether
 * `needed` more bytes still fit (as {@link lackOfSpace}); null between the checks.
 */
export function lackOfSpaceWhileWriting(
  dir: string,
  before: number,
  after: number,
  needed: number,
): string | null {
  return Math.floor(after / MiB) === Math.floor(before / MiB) ? null : lackOfSpace(dir, needed);
}

/** The nearest folder of `path` (itself or a parent) that exists: the file system a folder not made yet will be on. */
export function existingAncestor(path: string): string {
  let dir = path;
  while (!existsSync(dir) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/** What the files under `dir` hold, by their sizes (links not followed); 0 for a folder that does not exist. */
export function folderBytes(dir: string): number {
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const name of readdirSync(dir)) {
    const st = lstatSync(join(dir, name));
    n += st.isDirectory() ? folderBytes(join(dir, name)) : st.isFile() ? st.size : 0;
  }
  return n;
}
