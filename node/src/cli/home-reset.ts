import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { Level } from "level";
import { CliError } from "../client/cli-error.js";
import type { HomeLayout } from "../config/home-layout.js";
import { writeNewPrivValidatorKey } from "../config/priv-validator-key.js";
import { signStateJson } from "../consensus/sign-state.js";
import { openLevelDb } from "../store/leveldb-open.js";
import { StoreLockedError } from "../store/store-errors.js";

/**
 * Runs `wipe` while holding the database's LevelDB lock, so a node cannot start in the middle; a node that is
 * running holds the lock already, and the reset is refused. A database that cannot be opened for another reason
 * (damaged) is what a reset is for: it goes on.
 */
async function withStoppedNode(
  layout: HomeLayout,
  wipe: () => void,
  opts: { keepDb?: boolean } = {},
): Promise<void> {
  let db: Level<Uint8Array, Uint8Array> | undefined;
  if (existsSync(layout.dbDir)) {
    try {
      db = await openLevelDb(layout.dbDir, { createIfMissing: false });
    } catch (e) {
      if (e instanceof StoreLockedError)
        throw new CliError(
          `the node of ${layout.home} is running (its database ${layout.dbDir} is locked): stop it before resetting`,
        );
    }
  }
  try {
    wipe();
  } finally {
    await db?.close();
  }
  // The database's own files go last, once its lock is released.
  if (!opts.keepDb) rmSync(layout.dbDir, { recursive: true, force: true });
}

function ensureValidatorKey(layout: HomeLayout): void {
  if (existsSync(layout.privValidatorKey)) return;
  mkdirSync(layout.configDir, { recursive: true, mode: 0o700 });
  writeNewPrivValidatorKey(layout.privValidatorKey);
}

function writeFreshSignState(layout: HomeLayout): void {
  mkdirSync(layout.dataDir, { recursive: true, mode: 0o700 });
  writeFileSync(layout.privValidatorState, signStateJson({ height: 0n, round: 0, step: 0 }), { mode: 0o600 });
}

/**
 * Removes what data/ holds but the database (whose lock the caller holds; it goes when that is released) and
 * the names in `keep`; answers the paths removed.
 */
function clearDataBesidesDb(layout: HomeLayout, keep: string[] = []): string[] {
  const removed: string[] = [];
  for (const name of existsSync(layout.dataDir) ? readdirSync(layout.dataDir) : []) {
    const path = join(layout.dataDir, name);
    if (keep.includes(name) || path === layout.dbDir) continue;
    rmSync(path, { recursive: true, force: true });
    removed.push(path);
  }
  return removed;
}

/**
 * `reset-state`, as CometBFT does it: removes the chain's data (blocks, state, indexes: everything under data/)
 * but the validator's last-signed record, so the validator cannot sign again at a height it signed; keys and
 * config stay as they are.
 */
export async function resetState(layout: HomeLayout): Promise<string[]> {
  const removed: string[] = [];
  await withStoppedNode(layout, () => {
    removed.push(...clearDataBesidesDb(layout, [basename(layout.privValidatorState)]));
  });
  if (existsSync(layout.dbDir)) throw new CliError(`could not remove ${layout.dbDir}`);
  removed.push(layout.dbDir);
  return removed;
}

/**
 * `unsafe-reset-priv-validator`, as CometBFT does it: the validator's last-signed record starts again at height 0
 * (a home without a validator key gets a new one). Unsafe: a validator that signed blocks others have seen may
 * then sign different ones at the same heights.
 */
export async function unsafeResetPrivValidator(layout: HomeLayout): Promise<void> {
  await withStoppedNode(layout, () => {}, { keepDb: true });
  ensureValidatorKey(layout);
  writeFreshSignState(layout);
}

/**
 * `unsafe-reset-all`, as CometBFT does it: the whole data folder goes, the address book too unless kept, and the
 * validator's last-signed record starts again at height 0 (a home without a validator key gets a new one).
 */
export async function unsafeResetAll(layout: HomeLayout, keepAddrBook: boolean): Promise<string[]> {
  const removed: string[] = [];
  const addrBook = join(layout.configDir, "addrbook.json");
  await withStoppedNode(layout, () => {
    if (!keepAddrBook && existsSync(addrBook)) {
      rmSync(addrBook);
      removed.push(addrBook);
    }
    clearDataBesidesDb(layout);
  });
  removed.push(layout.dataDir);
  ensureValidatorKey(layout);
  writeFreshSignState(layout);
  return removed;
}
