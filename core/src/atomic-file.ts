import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * Writes a whole file or none: a new file beside it, renamed over it, so a reader (or a process killed
 * mid-write) never sees half of one. The new file gets `mode` whatever the file it replaces had: 0600 for keys
 * and for records that hold a plan's info, whose URLs may carry credentials. `durable` flushes it to disk
 * before the rename, for what must survive a power cut once written (upgrade-info.json, keys).
 */
export function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  opts: { mode?: number; durable?: boolean } = {},
): void {
  const tmp = `${path}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`;
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
}
