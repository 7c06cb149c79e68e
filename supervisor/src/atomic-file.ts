import { renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * Writes a whole file or none: a new file beside it, renamed over it, so a reader (or a visor killed mid-write)
 * never sees half of one. The new file gets `mode` whatever the file it replaces had: 0600 for records that hold
 * a plan's info, whose URLs may carry credentials.
 */
export function writeFileAtomic(path: string, text: string, mode = 0o666): void {
  const tmp = `${path}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode, flag: "wx" });
  renameSync(tmp, path);
}
