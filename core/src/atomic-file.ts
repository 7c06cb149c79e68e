import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";

const tempName = (path: string) => `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;

/** The rename itself survives a power cut only once the folder holding it is flushed. */
function fsyncFolderSync(path: string): void {
  const fd = openSync(dirname(path), "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a whole file or none: a new file beside it, renamed over it, so a reader (or a process killed
 * mid-write) never sees half of one. The new file gets `mode` whatever the file it replaces had: 0600 for keys
 * and for records that hold a plan's info, whose URLs may carry credentials. `durable` flushes the file and then
 * its folder to disk, for what must survive a power cut once written (upgrade-info.json, keys).
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number; durable?: boolean } = {},
): void {
  const tmp = tempName(path);
  const fd = openSync(tmp, "wx", opts.mode ?? 0o666);
  try {
    writeFileSync(fd, data);
    if (opts.durable) fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw e;
  }
  closeSync(fd);
  renameSync(tmp, path);
  if (opts.durable) fsyncFolderSync(path);
}

/**
 * writeFileAtomic with `durable`, off the event loop: the writes and flushes run on libuv's threads, so a node can
 * go on with a block while its validator's sign state reaches the disk.
 */
export async function writeFileAtomicDurably(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number } = {},
): Promise<void> {
  const tmp = tempName(path);
  const file = await open(tmp, "wx", opts.mode ?? 0o666);
  try {
    await file.writeFile(data);
    await file.sync();
  } catch (e) {
    await file.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await file.close();
  await rename(tmp, path);
  const folder = await open(dirname(path), "r");
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
