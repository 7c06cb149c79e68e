import {
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join, relative } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { crashPoint } from "./crash-point.js";
import { lackOfSpace } from "./disk-space.js";
import { VisorError } from "./visor-error.js";
import { HEIGHT_PROBE_DIR } from "./visor-layout.js";

/** LevelDB never rewrites a table file once written: those are shared by hard link instead of copied. */
const IMMUTABLE = /\.(ldb|sst)$/;

interface Entry {
  rel: string;
  size: number;
}

function walk(dir: string, base = dir, out: Entry[] = []): Entry[] {
  for (const name of readdirSync(dir)) {
    // The height probe's scratch copy of the databases, which it fills and removes while the node runs.
    if (dir === base && name === HEIGHT_PROBE_DIR) continue;
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) walk(p, base, out);
    else if (st.isFile()) out.push({ rel: relative(base, p), size: st.size });
  }
  return out;
}

/**
 * Backs up `<home>/data` to `<backupRoot>/data-backup-<time>`: immutable LevelDB tables are hard-linked (so the
 * time does not grow with the data), everything else is copied; across file systems everything is copied.
 * The copy is checked file by file (names and sizes) before it is renamed into place, and only the newest
 * `keep` backups are kept. A backup that would not fit (what it copies, plus the disk's reserve) is refused
 * before it starts, so it never fills the disk the node writes to.
 */
export function backupData(
  dataDir: string,
  backupRoot: string,
  opts: { keep: number; now?: Date },
  deps: { logger: Logger },
): { dir: string; linked: number; copied: number; ms: number } {
  const started = performance.now();
  const stamp = (opts.now ?? new Date()).toISOString().replace(/[:.]/g, "-");
  const dir = join(backupRoot, `data-backup-${stamp}`);
  const tmp = `${dir}.partial`;
  removePartialBackups(backupRoot);
  let linked = 0;
  let copied = 0;
  const entries = walk(dataDir);
  mkdirSync(backupRoot, { recursive: true });
  const sameDisk = statSync(dataDir).dev === statSync(backupRoot).dev;
  // Hard links cost no data space; across disks every file is copied.
  const needed = entries.reduce((n, e) => n + (sameDisk && IMMUTABLE.test(e.rel) ? 0 : e.size), 0);
  const lack = lackOfSpace(backupRoot, needed);
  if (lack)
    throw new VisorError(
      "BACKUP",
      `backup of ${dataDir} failed: not enough disk space: ${lack}; free some, or set UNSAFE_SKIP_BACKUP=true`,
    );
  try {
    for (const [i, e] of entries.entries()) {
      if (i === entries.length >> 1) crashPoint("backup");
      const src = join(dataDir, e.rel);
      const dst = join(tmp, e.rel);
      mkdirSync(join(dst, ".."), { recursive: true });
      if (IMMUTABLE.test(e.rel)) {
        try {
          linkSync(src, dst);
          linked++;
          continue;
        } catch (err) {
          if (
            (err as NodeJS.ErrnoException).code !== "EXDEV" &&
            (err as NodeJS.ErrnoException).code !== "EPERM"
          )
            throw err;
        }
      }
      copyFileSync(src, dst);
      copied++;
    }
    const copy = new Map(walk(tmp).map((e) => [e.rel, e.size]));
    for (const e of entries)
      if (copy.get(e.rel) !== e.size && !e.rel.endsWith(".log") && !e.rel.startsWith("LOG"))
        throw new Error(`${e.rel}: copy has ${copy.get(e.rel) ?? "no"} bytes, source ${e.size}`);
    renameSync(tmp, dir);
  } catch (e) {
    rmSync(tmp, { recursive: true, force: true });
    throw new VisorError("BACKUP", `backup of ${dataDir} failed: ${(e as Error).message}`);
  }
  rotateBackups(backupRoot, opts.keep, deps);
  const ms = Math.round(performance.now() - started);
  deps.logger.info("data backed up", { dir, linked, copied, ms });
  return { dir, linked, copied, ms };
}

/** A backup cut short (visor killed mid-copy) is never completed or kept: its folder goes. */
function removePartialBackups(root: string): void {
  if (!existsSync(root)) return;
  for (const f of readdirSync(root))
    if (f.startsWith("data-backup-") && f.endsWith(".partial"))
      rmSync(join(root, f), { recursive: true, force: true });
}

function rotateBackups(root: string, keep: number, deps: { logger: Logger }): void {
  if (keep <= 0 || !existsSync(root)) return;
  const all = readdirSync(root)
    .filter((f) => f.startsWith("data-backup-") && !f.endsWith(".partial"))
    .sort();
  for (const old of all.slice(0, Math.max(0, all.length - keep))) {
    rmSync(join(root, old), { recursive: true, force: true });
    deps.logger.info("removed old backup", { dir: join(root, old) });
  }
}
