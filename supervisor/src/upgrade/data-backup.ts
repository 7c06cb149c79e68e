import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { join, relative } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { Logger } from "@chaind/core/logger";
import { VisorError } from "../errors/visor-error.js";
import { HEIGHT_PROBE_DIR } from "../home/visor-layout.js";
import { crashPoint } from "../host/crash-point.js";
import { existingAncestor, lackOfSpace } from "../host/disk-space.js";

/** LevelDB never rewrites a table file once written: those are shared by hard link instead of copied. */
const IMMUTABLE = /\.(ldb|sst)$/;

interface Entry {
  rel: string;
  size: number;
  /** Permission bits, which a backup keeps: a 0700 data folder stays 0700 in its backup and once restored. */
  mode: number;
  folder: boolean;
}

/** Files and folders under `dir`, each folder listed before what it holds. */
function walk(dir: string, base = dir, out: Entry[] = []): Entry[] {
  for (const name of readdirSync(dir)) {
    // The height probe's scratch copy of the databases, which it fills and removes while the node runs.
    if (dir === base && name === HEIGHT_PROBE_DIR) continue;
    const p = join(dir, name);
    const st = statSync(p);
    const entry = { rel: relative(base, p), size: st.size, mode: st.mode & 0o7777 };
    if (st.isDirectory()) {
      out.push({ ...entry, folder: true });
      walk(p, base, out);
    } else if (st.isFile()) out.push({ ...entry, folder: false });
  }
  return out;
}

/** The data space a clone of `entries` takes: hard-linked tables take none on the same disk. */
function bytesToCopy(entries: Entry[], sameDisk: boolean): number {
  return entries.reduce((n, e) => n + (e.folder || (sameDisk && IMMUTABLE.test(e.rel)) ? 0 : e.size), 0);
}

/**
 * Copies `entries` of `from` into `to`: immutable LevelDB tables hard-linked (copied across file systems), the
 * rest copied with their modes; then checks every file's size (but logs', which LevelDB may still append to),
 * and gives each folder, `to` too, the mode of its source (last, so a read-only folder is filled first).
 */
function cloneEntries(
  entries: Entry[],
  from: string,
  to: string,
  onFile?: (index: number) => void,
): { linked: number; copied: number } {
  let linked = 0;
  let copied = 0;
  for (const [i, e] of entries.entries()) {
    onFile?.(i);
    const src = join(from, e.rel);
    const dst = join(to, e.rel);
    if (e.folder) {
      mkdirSync(dst, { recursive: true });
      continue;
    }
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
  mkdirSync(to, { recursive: true });
  const copy = new Map(walk(to).map((e) => [e.rel, e.size]));
  for (const e of entries)
    if (!e.folder && copy.get(e.rel) !== e.size && !e.rel.endsWith(".log") && !e.rel.startsWith("LOG"))
      throw new Error(`${e.rel}: copy has ${copy.get(e.rel) ?? "no"} bytes, source ${e.size}`);
  // Deepest first: listed before their contents, folders are walked back to front.
  for (const e of entries.toReversed()) if (e.folder) chmodSync(join(to, e.rel), e.mode);
  chmodSync(to, statSync(from).mode & 0o7777);
  return { linked, copied };
}

/**
 * Whether the backup the next upgrade makes of `dataDir` would fit in `backupRoot` now (as backupData checks
 * it at the halt); null when it would, or when there is no data folder yet, else why not.
 */
export function lackOfBackupSpace(dataDir: string, backupRoot: string): string | null {
  if (!existsSync(dataDir)) return null;
  const root = existingAncestor(backupRoot);
  const needed = bytesToCopy(walk(dataDir), statSync(dataDir).dev === statSync(root).dev);
  const lack = lackOfSpace(root, needed);
  return (
    lack && `the data backup at the halt will not fit: ${lack}; free some, or set UNSAFE_SKIP_BACKUP=true`
  );
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
  const needed = bytesToCopy(entries, sameDisk);
  const lack = lackOfSpace(backupRoot, needed);
  if (lack)
    throw new VisorError(
      "BACKUP",
      `backup of ${dataDir} failed: not enough disk space: ${lack}; free some, or set UNSAFE_SKIP_BACKUP=true`,
    );
  try {
    ({ linked, copied } = cloneEntries(entries, dataDir, tmp, (i) => {
      if (i === entries.length >> 1) crashPoint("backup");
    }));
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

/**
 * Files of the data folder a restore keeps as the failed binary left them: CometBFT's record of the last height
 * and round it signed only ever moves forward; an older one would let the validator sign that height twice.
 */
const KEPT_ON_RESTORE = ["priv_validator_state.json"];

/** What a restore under way has done, kept inside its clone so a restore cut short resumes it faithfully. */
interface RestoreJournal {
  /** The backup the clone was made from. */
  backup: string;
  /** Where the data folder was set aside, once it was. */
  failed_data: string | null;
}

const JOURNAL = ".visor-rollback.json";

function readJournal(staged: string, backupDir: string): RestoreJournal {
  let journal: RestoreJournal;
  try {
    journal = JSON.parse(readFileSync(join(staged, JOURNAL), "utf8")) as RestoreJournal;
  } catch (e) {
    throw new VisorError(
      "ROLLBACK",
      `restoring ${backupDir} failed: ${staged} is there but its journal cannot be read (${(e as Error).message}), so which backup it holds is unknown; move it away, then run visor again`,
    );
  }
  if (journal.backup !== backupDir)
    throw new VisorError(
      "ROLLBACK",
      `restoring ${backupDir} failed: ${staged} holds another backup (${journal.backup}); move it away, then run visor again`,
    );
  return journal;
}

/**
 * Puts a backup back as `dataDir`: the backup is cloned (tables hard-linked, so the backup itself stays intact
 * while the node writes) into `<dataDir>.rollback`, then the data folder is set aside as
 * `<dataDir>.failed-<time>` and the clone renamed into its place. Safe to repeat after a crash: a complete clone
 * of the same backup is used again (its journal says which, and where the data folder went), a partial one made
 * again. Answers where the set-aside folder went (null when there was none).
 */
export function restoreDataBackup(
  backupDir: string,
  dataDir: string,
  opts: { now?: Date },
  deps: { logger: Logger },
): { failedData: string | null } {
  const staged = `${dataDir}.rollback`;
  const partial = `${staged}.partial`;
  let journal: RestoreJournal = { backup: backupDir, failed_data: null };
  if (existsSync(staged)) journal = readJournal(staged, backupDir);
  else {
    rmSync(partial, { recursive: true, force: true });
    const entries = walk(backupDir);
    const parent = join(dataDir, "..");
    const sameDisk = statSync(backupDir).dev === statSync(parent).dev;
    const needed = bytesToCopy(entries, sameDisk);
    const lack = lackOfSpace(parent, needed);
    if (lack)
      throw new VisorError("ROLLBACK", `restoring ${backupDir} failed: not enough disk space: ${lack}`);
    try {
      cloneEntries(entries, backupDir, partial);
      writeFileAtomic(join(partial, JOURNAL), JSON.stringify(journal));
      renameSync(partial, staged);
    } catch (e) {
      rmSync(partial, { recursive: true, force: true });
      throw new VisorError("ROLLBACK", `restoring ${backupDir} failed: ${(e as Error).message}`);
    }
  }
  if (existsSync(dataDir)) {
    for (const f of KEPT_ON_RESTORE)
      if (existsSync(join(dataDir, f))) copyFileSync(join(dataDir, f), join(staged, f));
    const stamp = (opts.now ?? new Date()).toISOString().replace(/[:.]/g, "-");
    const setAside = `${dataDir}.failed-${stamp}`;
    journal = { ...journal, failed_data: setAside };
    writeFileAtomic(join(staged, JOURNAL), JSON.stringify(journal));
    renameSync(dataDir, setAside);
  }
  const failedData = journal.failed_data;
  crashPoint("rollback");
  renameSync(staged, dataDir);
  rmSync(join(dataDir, JOURNAL), { force: true });
  deps.logger.info("data restored from backup", { backup: backupDir, failed_data: failedData ?? "none" });
  return { failedData };
}
