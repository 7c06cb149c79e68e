import { mkdirSync } from "node:fs";
import { concatBytes } from "@chaind/core/bytes";
import { toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import type { Level } from "level";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { appHashOf } from "./app-hash.js";
import type { ChangeSet } from "./change-set.js";
import { CommittedKVStore } from "./committed-kv-store.js";
import { escapeBytes, escapedBytesKey } from "./escaped-bytes-key.js";
import { HistoryIndex } from "./history-index.js";
import { rebuildHistoryIndex } from "./history-rebuild.js";
import { openLevelDb } from "./leveldb-open.js";
import type { IterateOptions, MultiStore } from "./multi-store.js";
import { prefixEnd } from "./prefix-end.js";
import type { PruningOptions } from "./pruning.js";
import { MAX_CACHED_SCAN_ENTRIES, ReadCache, type ScanEntry } from "./read-cache.js";
import { rangeReadId, valueReadId } from "./read-ids.js";
import { StateDigest } from "./state-digest.js";
import {
  changesUpTo,
  isVersionIn,
  keyOfGroup,
  META_KEY,
  STATE_DIGEST_KEY,
  StateStoreKeys,
  splitVersionKey,
  versionInGroup,
} from "./state-store-keys.js";
import { StoreHeightError } from "./store-errors.js";

/** A raw write on the shared LevelDB (block store records), applied in the commit's batch. */
export type BatchOp = { type: "put"; key: Uint8Array; value: Uint8Array } | { type: "del"; key: Uint8Array };

export interface StateStoreOptions {
  /** The LevelDB folder (`<home>/data/application.db`); created when missing. */
  dir: string;
  pruning: PruningOptions;
  /** Bound of each read cache (default 10,000 values); 0 turns them off, to measure uncached reads. */
  readCacheEntries?: number;
}

/**
 * The meta record: the last committed height, its app hash (hex) and the oldest readable height; and the format of
 * the history index when the index is in step with the versions. A binary that keeps no index writes the record
 * without it, so a home it committed to is indexed again on the next open.
 */
export interface CommitMeta {
  height: number;
  appHash: string;
  earliest: number;
  historyIndex?: number;
}

/** The history index's format (history-nodes.ts), as the meta record names it. */
export const HISTORY_INDEX_FORMAT = 1;

/** The meta record as stored, read back. */
export function parseCommitMeta(raw: Uint8Array): CommitMeta {
  return JSON.parse(new TextDecoder().decode(raw)) as CommitMeta;
}

/** The batch op that writes the meta record (every commit, pruning, a rollback). */
export function commitMetaOp(meta: CommitMeta): Extract<BatchOp, { type: "put" }> {
  return { type: "put", key: META_KEY, value: new TextEncoder().encode(JSON.stringify(meta)) };
}

const { latest: latestKeys, versions: versionKeys, changes: changeKeys } = StateStoreKeys;
const TOMBSTONE = 0x00;
const VALUE = 0x01;

type Db = Level<Uint8Array, Uint8Array>;

/** The caller's records, into a block's (or an import's) batch. */
function addOps(
  batch: { put(k: Uint8Array, v: Uint8Array): unknown; del(k: Uint8Array): unknown },
  ops: BatchOp[],
) {
  for (const op of ops) {
    if (op.type === "put") batch.put(op.key, op.value);
    else batch.del(op.key);
  }
}

/** Converts a range within a store to absolute LevelDB bounds under `base` (the store's key prefix). */
function bounds(base: Uint8Array, opts: IterateOptions): { gte: Uint8Array; lt?: Uint8Array } {
  const prefix = opts.prefix ?? new Uint8Array();
  let gte = concatBytes(base, prefix);
  let lt = prefixEnd(gte);
  if (opts.start && Buffer.compare(concatBytes(base, opts.start), gte) > 0)
    gte = concatBytes(base, opts.start);
  if (opts.end) {
    const end = concatBytes(base, opts.end);
    if (!lt || Buffer.compare(end, lt) < 0) lt = end;
  }
  return { gte, lt };
}

/** A state whose entries do not hash to the app hash it was to have. */
export class StateHashMismatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateHashMismatchError";
  }
}

/** The digest of every entry of the latest keyspace, in one pass. */
async function digestOfLatest(db: Db): Promise<StateDigest> {
  const digest = StateDigest.empty();
  for await (const [k, v] of db.iterator({ gte: latestKeys.prefix, lt: prefixEnd(latestKeys.prefix) })) {
    const [store, key] = latestKeys.decode(k);
    digest.add(store, key, v);
  }
  return digest;
}

/** Enough for every hot key of a busy block; past it a cache starts over rather than grow. */
const READ_CACHE_ENTRIES = 10_000;
/** Entries a latest-keyspace scan asks LevelDB for at once: a default page (100) and its next key in one trip. */
const SCAN_BATCH = MAX_CACHED_SCAN_ENTRIES + 1;
/** Keys per batch when a snapshot is imported: bounded memory whatever the state's size. */
const IMPORT_BATCH_ENTRIES = 10_000;

/**
 * Versioned key-value state on one LevelDB. Latest values are one synchronous `get`; a value at a retained
 * height a few, through the history index. A block's writes, its records and the commit meta land in one atomic
 * batch.
 */
export class StateStore {
  private meta: CommitMeta;
  /** Before the first commit: the genesis initial_height and app_hash the chain starts from (InitChain). */
  private start = { height: 1, appHash: "" };
  /** Odd while a commit is being written; a read that sees it even and unchanged saw no commit land. */
  private commitEpoch = 0;
  /** Latest values and small scans read since the last commit, which empties it. */
  private readonly latestReads: ReadCache;
  /** Values and small scans read at past heights: those never change, so only pruning makes one unreadable. */
  private readonly pastReads: ReadCache;
  /** Each store's key prefix in the latest and versions keyspaces: encoded once, not on every read. */
  private readonly prefixes = new Map<string, { latest: Uint8Array; versions: Uint8Array }>();
  /** Each key's change heights, so a past read is a few synchronous gets. */
  readonly history: HistoryIndex;
  /** Told of each read (get or iteration) and of the keys each commit writes, for metrics; null: off. */
  opCounter: { read(): void; write(keys: number): void } | null = null;

  private constructor(
    readonly db: Db,
    readonly dir: string,
    private readonly pruning: PruningOptions,
    private readonly logger: Logger,
    meta: CommitMeta,
    private digest: StateDigest,
    readCacheEntries: number,
  ) {
    this.meta = meta;
    this.history = new HistoryIndex(db);
    this.latestReads = new ReadCache(readCacheEntries);
    this.pastReads = new ReadCache(readCacheEntries);
  }

  static async open(opts: StateStoreOptions, deps: { logger: Logger }): Promise<StateStore> {
    mkdirSync(opts.dir, { recursive: true });
    const db: Db = await openLevelDb(opts.dir);
    const raw = await db.get(META_KEY);
    let meta: CommitMeta = raw ? parseCommitMeta(raw) : { height: 0, appHash: "", earliest: 1 };
    const logger = deps.logger.child("store");
    logger.info("opened state store", { dir: opts.dir, height: meta.height, earliest: meta.earliest });
    // Before the first commit there is nothing to index: the first commit or import marks the index.
    if (meta.height > 0 && meta.historyIndex !== HISTORY_INDEX_FORMAT) {
      const started = performance.now();
      const built = await rebuildHistoryIndex(db);
      meta = { ...meta, historyIndex: HISTORY_INDEX_FORMAT };
      const metaOp = commitMetaOp(meta);
      await db.put(metaOp.key, metaOp.value, { sync: true });
      logger.info("built the history index", { ...built, ms: Math.round(performance.now() - started) });
    }
    const storedDigest = await db.get(STATE_DIGEST_KEY);
    let digest = storedDigest ? StateDigest.fromBytes(storedDigest) : StateDigest.empty();
    // A home committed to by a binary that kept no digest: sum its latest state once.
    if (meta.height > 0 && !storedDigest) {
      const started = performance.now();
      digest = await digestOfLatest(db);
      await db.put(STATE_DIGEST_KEY, digest.bytes(), { sync: true });
      logger.info("computed the state digest", { ms: Math.round(performance.now() - started) });
    }
    return new StateStore(
      db,
      opts.dir,
      opts.pruning,
      logger,
      meta,
      digest,
      opts.readCacheEntries ?? READ_CACHE_ENTRIES,
    );
  }

  /** The digest of the latest committed state. */
  get stateDigest(): StateDigest {
    return this.digest.clone();
  }

  /**
   * The digest and app hash the state will have once `changes` are committed on top of the latest state: each
   * change takes out the entry it replaces (read from the latest keyspace) and puts in its own.
   */
  stateAfter(changes: ChangeSet): { digest: StateDigest; appHash: Uint8Array } {
    const digest = this.digest.clone();
    for (const c of changes.entries()) {
      const old = this.db.getSync(concatBytes(this.prefixesOf(c.store).latest, c.key));
      if (old !== undefined) digest.remove(c.store, c.key, old);
      if (c.value !== null) digest.add(c.store, c.key, c.value);
    }
    return { digest, appHash: appHashOf(digest) };
  }

  get latestHeight(): number {
    return this.meta.height;
  }

  /** The last committed app hash; before the first block, the genesis app_hash (empty unless genesis names one). */
  get latestAppHash(): Uint8Array {
    const hex = this.meta.height === 0 ? this.start.appHash : this.meta.appHash;
    return new Uint8Array(Buffer.from(hex, "hex"));
  }

  /** The height the next commit must have: one past the latest, or genesis initial_height for the first. */
  get nextHeight(): number {
    return this.meta.height === 0 ? this.start.height : this.meta.height + 1;
  }

  /**
   * Where a chain begun from an exported genesis starts: its first block is `height` (genesis initial_height)
   * and chains its app hash onto `appHash`, as CometBFT takes both from genesis. Only before the first commit.
   */
  setGenesisStart(height: number, appHash: Uint8Array): void {
    if (this.meta.height !== 0)
      throw new Error(`the chain has begun (height ${this.meta.height}); its start cannot change`);
    this.start = { height, appHash: Buffer.from(appHash).toString("hex") };
  }

  /** Whether the history index is in step with the versions (it is from the first commit or import on). */
  get historyIndexed(): boolean {
    return this.meta.historyIndex === HISTORY_INDEX_FORMAT;
  }

  /** The oldest height whose state can still be read. */
  get earliestHeight(): number {
    return this.meta.earliest;
  }

  /** Throws a StoreHeightError unless the state at `height` is committed and not pruned. */
  checkHeight(height: number): void {
    const { height: latest, earliest } = this.meta;
    if (!Number.isSafeInteger(height) || height <= 0) {
      throw new StoreHeightError(
        "INVALID_HEIGHT",
        `cannot load state at height ${height}; heights start at 1 (latest height: ${latest})`,
      );
    }
    if (height > latest) {
      throw new StoreHeightError(
        "FUTURE_HEIGHT",
        `cannot load state at height ${height}; it is in the future (latest height: ${latest})`,
      );
    }
    if (height < earliest) {
      throw new StoreHeightError(
        "PRUNED_HEIGHT",
        `failed to load state at height ${height}; version does not exist (latest height: ${latest}, earliest: ${earliest})`,
      );
    }
  }

  /** The latest value, or the value at `height` (synchronous gets through the history index). */
  async get(store: string, key: Uint8Array, height?: number): Promise<Uint8Array | undefined> {
    this.opCounter?.read();
    if (height === undefined) return this.getLatest(store, key);
    this.checkHeight(height);
    // Most reads name the latest height (REST, gRPC and RPC queries without a height header): the latest
    // keyspace answers those without an iterator, unless a commit lands meanwhile.
    // While a commit is being written the latest keyspace may hold either height.
    if (this.commitEpoch % 2 === 0 && height === this.meta.height) return this.getLatest(store, key);
    const id = valueReadId(store, key, height);
    const hit = this.pastReads.getValue(id);
    if (hit !== undefined) return hit ?? undefined;
    const escKey = escapedBytesKey.encodeNonTerminal(key);
    const group = concatBytes(this.prefixesOf(store).versions, escKey);
    let v = this.versionFromIndex(store, escKey, group, height);
    if (v === null) v = await this.versionBySeek(group, height);
    // Pruning may have run while we read; an answer from a pruned height could be wrong.
    this.checkHeight(height);
    const value = v !== undefined && v[0] === VALUE ? new Uint8Array(v.subarray(1)) : undefined;
    this.pastReads.setValue(id, value);
    return value;
  }

  /**
   * The key's version in force at `height` (undefined: none) through the history index, in synchronous gets: the
   * index names the height of the version, then that version is read. Null when the index cannot tell.
   */
  private versionFromIndex(
    store: string,
    escKey: Uint8Array,
    group: Uint8Array,
    height: number,
  ): Uint8Array | undefined | null {
    if (!this.historyIndexed) return null;
    const at = this.history.changeAtOrBefore(store, escKey, height);
    if (at === null) return null;
    if (at === 0) return undefined;
    const v = this.db.getSync(versionInGroup(group, at));
    if (v !== undefined) return v;
    // Pruning drops a deletion that is the oldest readable version of its key, and nothing older is left; any
    // other missing version is not what the index promised.
    return at <= this.meta.earliest ? undefined : null;
  }

  /** The newest version at or below the height: one reverse seek within the key's versions. */
  private async versionBySeek(group: Uint8Array, height: number): Promise<Uint8Array | undefined> {
    const it = this.db.values({ gte: group, lte: versionInGroup(group, height), reverse: true, limit: 1 });
    try {
      return await it.next();
    } finally {
      await it.close();
    }
  }

  /**
   * A synchronous LevelDB read (a point read is cheaper than a hop to LevelDB's thread pool and back), so no
   * commit can land in between; one being written may or may not show, so its answer is not remembered.
   */
  private getLatest(store: string, key: Uint8Array): Uint8Array | undefined {
    const id = valueReadId(store, key);
    const hit = this.latestReads.getValue(id);
    if (hit !== undefined) return hit ?? undefined;
    const v = this.db.getSync(concatBytes(this.prefixesOf(store).latest, key));
    const value = v === undefined ? undefined : new Uint8Array(v);
    if (this.commitEpoch % 2 === 0) this.latestReads.setValue(id, value);
    return value;
  }

  /** Keys of a store in order, at the latest height or at a retained one. */
  iterate(
    store: string,
    opts: IterateOptions & { height?: number } = {},
  ): AsyncIterable<[Uint8Array, Uint8Array]> {
    // Decided when the iteration starts, as a generator would, but handing over the reader itself: no extra
    // step for each entry.
    return { [Symbol.asyncIterator]: () => this.reader(store, opts)[Symbol.asyncIterator]() };
  }

  private reader(store: string, opts: IterateOptions & { height?: number }): AsyncIterable<ScanEntry> {
    this.opCounter?.read();
    const { height } = opts;
    // A pinned height that is still the latest reads the latest keyspace, as cheap as an unpinned read: LevelDB
    // takes the iterator's snapshot when it is created, in this same tick, so a commit landing later cannot
    // show through. While a commit is being written the keyspace may hold either height: walk the versions.
    if (height === undefined || (height === this.meta.height && this.commitEpoch % 2 === 0)) {
      if (height !== undefined) this.checkHeight(height);
      return this.iterateLatest(store, opts);
    }
    this.checkHeight(height);
    return this.pastReads.scan(
      rangeReadId(store, opts, height),
      () => this.iterateAt(store, opts, height),
      () => true,
    );
  }

  /** The latest keyspace in batches of entries; a small range read whole is remembered until the next commit. */
  private iterateLatest(store: string, opts: IterateOptions): AsyncIterable<ScanEntry> {
    const base = this.prefixesOf(store).latest;
    const reverse = opts.reverse ?? false;
    const epoch = this.commitEpoch;
    return this.latestReads.scan(
      rangeReadId(store, opts),
      () => this.scanLatest(base, bounds(base, opts), reverse),
      // Its snapshot taken with no commit under way nor landed since: the latest state.
      () => epoch % 2 === 0 && this.commitEpoch === epoch,
    );
  }

  private async *scanLatest(
    base: Uint8Array,
    range: { gte: Uint8Array; lt?: Uint8Array },
    reverse: boolean,
  ): AsyncIterable<ScanEntry> {
    const it = this.db.iterator({ ...range, reverse });
    try {
      for (let batch = await it.nextv(SCAN_BATCH); batch.length > 0; batch = await it.nextv(SCAN_BATCH))
        for (const [k, v] of batch) yield [new Uint8Array(k.subarray(base.length)), new Uint8Array(v)];
    } finally {
      await it.close();
    }
  }

  /**
   * Walks the versions keyspace, one group of versions per key (`esc(key) T` then 8-byte heights, oldest
   * first), and yields each key's newest version <= height unless it is a deletion. Versions above the height
   * are skipped with a seek, so reading far behind a hot key does not walk its whole history.
   */
  private async *iterateAt(
    store: string,
    opts: IterateOptions,
    height: number,
  ): AsyncIterable<[Uint8Array, Uint8Array]> {
    this.checkHeight(height);
    // Escaping preserves order and prefixes, so escaped bounds select exactly the keys in range.
    const base = this.prefixesOf(store).versions;
    const rel = (k?: Uint8Array) => k && escapeBytes(k);
    const range = bounds(base, { prefix: rel(opts.prefix), start: rel(opts.start), end: rel(opts.end) });
    const reverse = opts.reverse ?? false;
    const it = this.db.iterator({ ...range, reverse });
    try {
      let entry = await it.next();
      while (entry) {
        const { group } = splitVersionKey(entry[0]);
        const inGroup = (e: [Uint8Array, Uint8Array] | undefined): e is [Uint8Array, Uint8Array] =>
          e !== undefined && isVersionIn(e[0], group);
        let best: Uint8Array | undefined;
        if (!reverse) {
          while (inGroup(entry)) {
            if (splitVersionKey(entry[0]).height > height) {
              it.seek(prefixEnd(group)!);
              entry = await it.next();
              break;
            }
            best = entry[1];
            entry = await it.next();
          }
        } else {
          if (splitVersionKey(entry[0]).height > height) {
            // Lands on this key's newest version <= height, or on an earlier key when it has none.
            it.seek(versionInGroup(group, height));
            entry = await it.next();
          }
          if (inGroup(entry)) {
            best = entry[1];
            entry = await it.next();
            if (inGroup(entry)) {
              // Older versions of this key are shadowed: a reverse seek to the bare group lands below them.
              it.seek(group);
              entry = await it.next();
            }
          }
        }
        if (best && best[0] === VALUE) {
          const key = keyOfGroup(group, base);
          // Pruning may have run while we read; an answer from a pruned height could be wrong.
          this.checkHeight(height);
          yield [key, new Uint8Array(best.subarray(1))];
        }
      }
    } finally {
      await it.close();
    }
  }

  private prefixesOf(store: string): { latest: Uint8Array; versions: Uint8Array } {
    let p = this.prefixes.get(store);
    if (!p) {
      p = { latest: latestKeys.prefixOf(store), versions: versionKeys.prefixOf(store) };
      this.prefixes.set(store, p);
    }
    return p;
  }

  /**
   * A read-only view of all stores: pinned to a retained height, or (no height) reading whatever is latest at
   * the time of each read. Branch it with CacheMultiStore to write. A view pinned to the latest height costs what
   * an unpinned one does (latest keyspace and its cache) until the next commit lands; from then on its reads seek
   * that height's versions, so it never mixes two heights.
   */
  view(height?: number): MultiStore {
    if (height !== undefined) this.checkHeight(height);
    return { store: (name) => new CommittedKVStore(this, name, height) };
  }

  /** Writes a block's state changes with the caller's records in one batch, then prunes when due. */
  /** `after`: what stateAfter(changes) answered, when the caller has it already. */
  async commit(
    height: number,
    changes: ChangeSet,
    extraOps: BatchOp[] = [],
    after = this.stateAfter(changes),
  ): Promise<Uint8Array> {
    if (height !== this.nextHeight) {
      throw ChainError.wrap(
        SdkErrors.InvalidHeight,
        `cannot commit height ${height}: the last committed height is ${this.meta.height}${this.meta.height === 0 ? ` (the chain starts at ${this.start.height})` : ""}`,
      );
    }
    const { appHash, digest } = after;
    const entries = changes.entries();
    const batch = this.db.batch();
    const indexed = this.meta.height === 0 || this.historyIndexed;
    let settleIndex: (() => void) | undefined;
    try {
      settleIndex = indexed ? await this.history.commitOps(height, entries, batch) : undefined;
    } catch (e) {
      await batch.close();
      throw e;
    }
    let written = 0;
    for (const c of entries) {
      written++;
      const prefixes = this.prefixesOf(c.store);
      const latestKey = concatBytes(prefixes.latest, c.key);
      if (c.value === null) batch.del(latestKey);
      else batch.put(latestKey, c.value);
      const tagged = c.value === null ? Uint8Array.of(TOMBSTONE) : concatBytes(Uint8Array.of(VALUE), c.value);
      batch.put(
        versionInGroup(concatBytes(prefixes.versions, escapedBytesKey.encodeNonTerminal(c.key)), height),
        tagged,
      );
      if (this.pruning.keepRecent > 0)
        batch.put(changeKeys.encode([height, c.store, c.key]), new Uint8Array());
    }
    addOps(batch, extraOps);
    const meta: CommitMeta = {
      height,
      appHash: Buffer.from(appHash).toString("hex"),
      // No state exists below a chain's first block.
      earliest: this.meta.height === 0 ? height : this.meta.earliest,
      ...(indexed ? { historyIndex: HISTORY_INDEX_FORMAT } : {}),
    };
    const metaOp = commitMetaOp(meta);
    batch.put(metaOp.key, metaOp.value);
    batch.put(STATE_DIGEST_KEY, digest.bytes());
    this.commitEpoch++;
    this.latestReads.clear();
    try {
      // Synced: a block reported committed survives a power cut (docs/RELIABILITY.md, "Durable blocks").
      await batch.write({ sync: true });
      this.meta = meta;
      this.digest = digest;
      settleIndex?.();
    } catch (e) {
      // What the index remembers may now differ from the records.
      this.history.forget();
      throw e;
    } finally {
      this.commitEpoch++;
    }
    this.opCounter?.write(written);
    if (this.pruning.keepRecent > 0 && this.pruning.interval > 0 && height % this.pruning.interval === 0) {
      await this.prune(height - this.pruning.keepRecent + 1);
    }
    return appHash;
  }

  /**
   * Drops versions that no read at `newEarliest` or later can reach. A key written at h' <= newEarliest makes
   * its versions below h' unreachable; the change log names those keys, so the cost follows what changed.
   */
  private async prune(newEarliest: number): Promise<void> {
    if (newEarliest <= this.meta.earliest) return;
    const started = performance.now();
    // Readers check `earliest` after each read, so raise it before anything is deleted.
    const meta: CommitMeta = { ...this.meta, earliest: newEarliest };
    this.meta = meta;
    const batch = this.db.batch();
    let removed = 0;
    let keysGone = 0;
    for await (const k of this.db.keys(changesUpTo(newEarliest))) {
      const [changedAt, store, key] = changeKeys.decode(k);
      batch.del(k);
      for (const node of this.history.prunableNodes(store, key, changedAt)) batch.del(node);
      const group = concatBytes(this.prefixesOf(store).versions, escapedBytesKey.encodeNonTerminal(key));
      for await (const [vk, vv] of this.db.iterator({ gte: group, lte: versionInGroup(group, changedAt) })) {
        const h = splitVersionKey(vk).height;
        // The version at changedAt stays unless it is a deletion: no later read needs a tombstone with nothing below it.
        if (h < changedAt || (h === changedAt && vv[0] === TOMBSTONE)) {
          batch.del(vk);
          removed++;
          if (h === changedAt) {
            const gone = this.history.deletedKeyRecords(store, key, changedAt);
            for (const record of gone) batch.del(record);
            if (gone.length > 0) keysGone++;
          }
        }
      }
    }
    const metaOp = commitMetaOp(meta);
    batch.put(metaOp.key, metaOp.value);
    await batch.write();
    // The commits' remembered heads may name keys whose records just went: the records are the truth again.
    if (keysGone > 0) this.history.forget();
    this.logger.debug("pruned state", {
      earliest: newEarliest,
      removed,
      ms: Math.round(performance.now() - started),
    });
  }

  /** Whether the database holds nothing at all: no state, no block, not even a genesis record. */
  async isEmpty(): Promise<boolean> {
    for await (const _ of this.db.keys({ limit: 1 })) return false;
    return true;
  }

  /**
   * Fills an empty store with the state at `height` (a snapshot's), as if that height had just been committed:
   * latest values and their versions at `height`, so reads and pruning go on as usual. Written in batches; the
   * commit meta (with the caller's records) comes last, so until then the store reads as never committed. The
   * app hash is recomputed from the entries imported: one that is not `appHash` throws before the meta record
   * is written (the caller clears what was written).
   */
  async importState(
    height: number,
    appHash: Uint8Array,
    items: AsyncIterable<{ store: string; key: Uint8Array; value: Uint8Array }>,
    extraOps: BatchOp[],
  ): Promise<number> {
    if (this.meta.height !== 0)
      throw new Error(`cannot import state: the store is at height ${this.meta.height}`);
    let batch = this.db.batch();
    let imported = 0;
    const digest = StateDigest.empty();
    for await (const { store, key, value } of items) {
      digest.add(store, key, value);
      batch.put(latestKeys.encode([store, key]), value);
      batch.put(versionKeys.encode([store, key, height]), concatBytes(Uint8Array.of(VALUE), value));
      const head = this.history.importedHead(store, key, height);
      batch.put(head.key, head.value);
      if (this.pruning.keepRecent > 0) batch.put(changeKeys.encode([height, store, key]), new Uint8Array());
      if (++imported % IMPORT_BATCH_ENTRIES === 0) {
        await batch.write();
        batch = this.db.batch();
      }
    }
    const restored = appHashOf(digest);
    if (Buffer.compare(restored, appHash) !== 0) {
      await batch.close();
      throw new StateHashMismatchError(
        `the state imported hashes to app hash ${toHexUpper(restored)}, not the ${toHexUpper(appHash)} it was to have at height ${height}`,
      );
    }
    addOps(batch, extraOps);
    const meta: CommitMeta = {
      height,
      appHash: Buffer.from(appHash).toString("hex"),
      earliest: height,
      historyIndex: HISTORY_INDEX_FORMAT,
    };
    const metaOp = commitMetaOp(meta);
    batch.put(metaOp.key, metaOp.value);
    batch.put(STATE_DIGEST_KEY, digest.bytes());
    await batch.write({ sync: true });
    this.meta = meta;
    this.digest = digest;
    this.latestReads.clear();
    this.pastReads.clear();
    this.history.forget();
    return imported;
  }

  async close(): Promise<void> {
    if (this.db.status === "open") await this.db.close();
  }
}
