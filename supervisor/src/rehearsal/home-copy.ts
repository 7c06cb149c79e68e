import {
  chmodSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join, relative } from "node:path";
import { snapshotDatabase } from "../daemon/leveldb-snapshot.js";
import { VisorError } from "../errors/visor-error.js";
import { HEIGHT_PROBE_DIR, VisorLayout } from "../home/visor-layout.js";
import { folderBytes } from "../host/disk-space.js";
import { freshNodeKeys } from "./fresh-node-keys.js";

/**
 * What of data/ a rehearsal leaves out: state-sync snapshots, CometBFT's consensus log and indexes (the copy
 * makes its own), the sign state (the copy signs with a new key from its own height), visor's probe folder and
 * the batch file (the copy must not queue the live node's upgrades).
 */
const LEFT_OUT = new Set([
  "snapshots",
  "cs.wal",
  "tx_index.db",
  "evidence.db",
  "priv_validator_state.json",
  HEIGHT_PROBE_DIR,
  "upgrade-info.json.batch",
]);

/** The application's database: copied first, so every other store (CometBFT's blocks) is at least as new. */
const APP_DB = "application.db";

/** Key files the copy gets new ones of (see freshNodeKeys), and the live keyring, which it never needs. */
const KEY_FILES = new Set(["priv_validator_key.json", "node_key.json"]);

export interface HomeCopyStats {
  /** Bytes shared with the live home by hard link (LevelDB tables, binaries): no new space. */
  linkedBytes: number;
  /** Bytes written anew. */
  copiedBytes: number;
}

const isLevelDb = (dir: string) => existsSync(join(dir, "CURRENT"));

/** A file copied (cloned where the file system can); the live file is only read. */
function copyFile(src: string, dst: string, stats: HomeCopyStats): void {
  copyFileSync(src, dst, constants.COPYFILE_FICLONE);
  stats.copiedBytes += statSync(src).size;
}

/** A folder's files copied, its folders walked (links are not followed: a copy holds no path into the live home). */
function copyTree(src: string, dst: string, stats: HomeCopyStats): void {
  mkdirSync(dst, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(src)) {
    const st = lstatSync(join(src, name));
    if (st.isDirectory()) copyTree(join(src, name), join(dst, name), stats);
    else if (st.isFile()) copyFile(join(src, name), join(dst, name), stats);
  }
}

/**
 * A folder of binaries hard-linked file by file: visor installs a binary by renaming a new file over it, never
 * by writing into it, so the live file and the copy stay the same bytes (copied across file systems).
 */
function linkTree(src: string, dst: string, stats: HomeCopyStats): void {
  // With the source's mode: visor checks an unpacked pre-fetch's folders against its record.
  mkdirSync(dst, { recursive: true });
  chmodSync(dst, statSync(src).mode & 0o7777);
  for (const name of readdirSync(src)) {
    const from = join(src, name);
    const st = lstatSync(from);
    if (st.isDirectory()) linkTree(from, join(dst, name), stats);
    else if (st.isFile())
      try {
        linkSync(from, join(dst, name));
        stats.linkedBytes += st.size;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EXDEV") throw e;
        copyFile(from, join(dst, name), stats);
      }
  }
}

/**
 * A copy of a live home in `dest` that the node never notices and that shares nothing the node writes:
 * - config/ copied, with new validator and node keys (the live keys stay where they are);
 * - each LevelDB store of data/ as one consistent snapshot (see snapshotDatabase: tables hard-linked, the rest
 *   copied), the application's first; other files of data/ copied; what LEFT_OUT names left out;
 * - in cosmovisor/, the folder `current` names, the plan's upgrade and pre-fetch folders (hard-linked), and a
 *   `current` link to the same place, as at the real halt.
 * Tables copied across file systems count against `copyLimit`.
 */
export function copyLiveHome(
  live: VisorLayout,
  dest: string,
  plan: string,
  copyLimit: number,
): HomeCopyStats {
  const stats: HomeCopyStats = { linkedBytes: 0, copiedBytes: 0 };
  const home = live.config.home;
  const copy = new VisorLayout({ ...live.config, home: dest });
  mkdirSync(join(dest, "config"), { recursive: true, mode: 0o700 });
  for (const name of readdirSync(join(home, "config"))) {
    const st = lstatSync(join(home, "config", name));
    if (st.isFile() && !KEY_FILES.has(name))
      copyFile(join(home, "config", name), join(dest, "config", name), stats);
  }
  const keys = freshNodeKeys();
  writeFileSync(join(dest, "config", "priv_validator_key.json"), keys.privValidatorKey, { mode: 0o600 });
  writeFileSync(join(dest, "config", "node_key.json"), keys.nodeKey, { mode: 0o600 });

  mkdirSync(copy.dataDir, { recursive: true, mode: 0o700 });
  const entries = readdirSync(live.dataDir).filter((n) => !LEFT_OUT.has(n));
  const dbs = entries.filter((n) => isLevelDb(join(live.dataDir, n)));
  dbs.sort((a, b) => (a === APP_DB ? -1 : b === APP_DB ? 1 : a.localeCompare(b)));
  for (const db of dbs) {
    const target = join(copy.dataDir, db);
    snapshotDatabase(join(live.dataDir, db), target, copyLimit);
    stats.linkedBytes += folderBytes(target);
  }
  for (const name of entries.filter((n) => !dbs.includes(n))) {
    const st = lstatSync(join(live.dataDir, name));
    if (st.isDirectory()) copyTree(join(live.dataDir, name), join(copy.dataDir, name), stats);
    else if (st.isFile()) copyFile(join(live.dataDir, name), join(copy.dataDir, name), stats);
  }
  // A fresh sign state: the copy's validator has signed nothing yet.
  writeFileSync(
    join(copy.dataDir, "priv_validator_state.json"),
    `${JSON.stringify({ height: "0", round: 0, step: 0 }, null, 2)}\n`,
    { mode: 0o600 },
  );

  if (!live.isLink(live.currentLink))
    throw new VisorError("REHEARSAL", `${live.currentLink} is not a link: start the node under visor first`);
  const current = live.currentDir();
  if (relative(live.root, current).startsWith(".."))
    throw new VisorError("REHEARSAL", `the running binary's folder ${current} is outside ${live.root}`);
  for (const dir of [current, live.upgradeDir(plan), live.prefetchDirOf(plan)])
    if (existsSync(dir)) linkTree(dir, join(copy.root, relative(live.root, dir)), stats);
  symlinkSync(readlinkSync(live.currentLink), copy.currentLink);
  return stats;
}
