import { renameSync, rmSync, writeFileSync } from "node:fs";

/**
 * Writes a file only visor's own user may read (0600, whatever the umask or the mode of the file it replaces):
 * a new file beside it, renamed over it. For records that hold a plan's info, whose URLs may carry credentials.
 */
export function writePrivateFile(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  rmSync(tmp, { force: true });
  writeFileSync(tmp, text, { mode: 0o600, flag: "wx" });
  renameSync(tmp, path);
}
