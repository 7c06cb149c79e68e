import { concatBytes } from "@chaind/core/bytes";
import type { Level } from "level";
import { escapedAfter, escapedBytesKey } from "./escaped-bytes-key.js";
import {
  changeAtOrBefore,
  decodeHead,
  decodeNode,
  encodeHead,
  encodeNode,
  INDEX_LEVELS,
  type IndexNode,
  type NodeReader,
  type NodeWrite,
  nodesBelow,
  nodesToUndo,
  parentsToRead,
  rangeOf,
  recordChange,
  undoChange,
} from "./history-nodes.js";
import { mapKey } from "./map-key.js";
import type { BatchOp } from "./state-store.js";
import { StateStoreKeys } from "./state-store-keys.js";
import { safeUint64Key, uint32Key } from "./uint-keys.js";

type Db = Level<Uint8Array, Uint8Array>;

/**
 * Heads of keys written lately (about 20 MB when full of small ones), so a key written block after block costs no
 * read at commit.
 */
const COMMIT_CACHE_ENTRIES = 100_000;

const { historyHeads: headKeys, historyNodes: nodeKeys } = StateStoreKeys;

/** Where a commit's index writes go: its batch. */
export interface BatchWriter {
  put(key: Uint8Array, value: Uint8Array): unknown;
}

/** One key a commit changes: its store and its bytes. */
export interface ChangedKey {
  store: string;
  key: Uint8Array;
}

/**
 * The state store's per-key change heights (history-nodes.ts) on LevelDB: a past read finds the height of the
 * version it needs with one to four synchronous gets, so it never waits on LevelDB's thread pool. Commits, pruning,
 * rollback and snapshot import keep it in step with the versions, in their own batches.
 */
export class HistoryIndex {
  /** Each store's prefix in the head and node keyspaces: encoded once, not on every read. */
  private readonly prefixes = new Map<string, { heads: Uint8Array; nodes: Uint8Array }>();
  /** Heads (null: none) and open parent nodes as the last commits left them, by mapKey of the record's key. */
  private readonly heads = new Map<string, IndexNode | null>();
  private readonly parents = new Map<string, IndexNode | null>();

  constructor(private readonly db: Db) {}

  private prefixesOf(store: string): { heads: Uint8Array; nodes: Uint8Array } {
    let p = this.prefixes.get(store);
    if (!p) {
      p = { heads: headKeys.prefixOf(store), nodes: nodeKeys.prefixOf(store) };
      this.prefixes.set(store, p);
    }
    return p;
  }

  /** `escKey`: the key escaped and terminated, as in the versions keyspace. */
  private headKey(store: string, escKey: Uint8Array): Uint8Array {
    return concatBytes(this.prefixesOf(store).heads, escKey);
  }

  private nodeKey(store: string, escKey: Uint8Array, level: number, range: number): Uint8Array {
    return concatBytes(
      this.prefixesOf(store).nodes,
      escKey,
      uint32Key.encode(level),
      safeUint64Key.encode(range),
    );
  }

  private syncReader(store: string, escKey: Uint8Array): NodeReader {
    return (level, range) => {
      const raw = this.db.getSync(this.nodeKey(store, escKey, level, range));
      return raw === undefined ? undefined : decodeNode(level, range, raw);
    };
  }

  /** The height of the key's newest change at or before `height` (0: none); null: read the versions instead. */
  changeAtOrBefore(store: string, escKey: Uint8Array, height: number): number | null {
    const raw = this.db.getSync(this.headKey(store, escKey));
    const head = raw === undefined ? undefined : decodeHead(raw);
    return changeAtOrBefore(head, height, this.syncReader(store, escKey));
  }

  private writeOps(store: string, escKey: Uint8Array, writes: NodeWrite[]): BatchOp[] {
    return writes.map(({ level, range, node }) => {
      const key = this.nodeKey(store, escKey, level, range);
      return node ? { type: "put", key, value: encodeNode(level, range, node) } : { type: "del", key };
    });
  }

  /**
   * Adds the index writes of a commit at `height` changing `keys` to its batch. Heads and parents the last commits
   * left are known; the others are read in one trip each. Returns what records them once the batch is written.
   */
  async commitOps(height: number, keys: ChangedKey[], batch: BatchWriter): Promise<() => void> {
    const refs = keys.map(({ store, key }) => {
      const heads = this.prefixesOf(store).heads;
      const headKey = escapedAfter(heads, key);
      const id = mapKey(headKey);
      // The head: undefined while not known; null when the key has none.
      const head: IndexNode | null | undefined = this.heads.get(id);
      return { store, escKey: headKey.subarray(heads.length), headKey, id, head };
    });
    const unknown = refs.filter((r) => r.head === undefined);
    if (unknown.length > 0) {
      const fetched = await this.db.getMany(unknown.map((r) => r.headKey));
      unknown.forEach((r, i) => {
        const raw = fetched[i];
        r.head = raw === undefined ? null : decodeHead(raw);
      });
    }
    const parents = new Map<string, IndexNode | null>();
    const wanted: { id: string; key: Uint8Array; level: number; range: number }[] = [];
    for (const r of refs)
      for (const [level, range] of parentsToRead(r.head ?? undefined, height)) {
        const key = this.nodeKey(r.store, r.escKey, level, range);
        const id = mapKey(key);
        if (!this.parents.has(id)) wanted.push({ id, key, level, range });
      }
    if (wanted.length > 0) {
      const raws = await this.db.getMany(wanted.map((w) => w.key));
      wanted.forEach(({ id, level, range }, i) => {
        const raw = raws[i];
        parents.set(id, raw === undefined ? null : decodeNode(level, range, raw));
      });
    }
    const newHeads: [string, IndexNode][] = [];
    const newParents: [string, IndexNode | null][] = [];
    for (const r of refs) {
      const { head, writes } = recordChange(r.head ?? undefined, height, (level, range) => {
        const id = mapKey(this.nodeKey(r.store, r.escKey, level, range));
        return (parents.has(id) ? parents.get(id) : this.parents.get(id)) ?? undefined;
      });
      batch.put(r.headKey, encodeHead(head));
      newHeads.push([r.id, head]);
      for (const { level, range, node } of writes) {
        const key = this.nodeKey(r.store, r.escKey, level, range);
        // recordChange only puts nodes.
        if (node) batch.put(key, encodeNode(level, range, node));
        if (level > 1) newParents.push([mapKey(key), node]);
      }
    }
    return () => {
      if (this.heads.size + newHeads.length > COMMIT_CACHE_ENTRIES) this.forget();
      for (const [id, head] of newHeads) this.heads.set(id, head);
      for (const [id, node] of newParents) this.parents.set(id, node);
    };
  }

  /** Drops what the commits remembered: after a failed write or an import, the records are the truth again. */
  forget(): void {
    this.heads.clear();
    this.parents.clear();
  }

  /**
   * Pruning: once the change at `changedAt` is the oldest readable version of the key, the nodes of the change
   * before it that lie wholly below are never read again.
   */
  prunableNodes(store: string, key: Uint8Array, changedAt: number): Uint8Array[] {
    const escKey = escapedBytesKey.encodeNonTerminal(key);
    const before = changedAt > 1 ? this.changeAtOrBefore(store, escKey, changedAt - 1) : 0;
    if (before === null) return [];
    return nodesBelow(before, changedAt).map(([level, range]) => this.nodeKey(store, escKey, level, range));
  }

  /**
   * Pruning a key whose newest change is the deletion at `changedAt`, removed now with every older version: its
   * head and the nodes of that change's ranges go too, so a key deleted for good leaves no record behind (a
   * missing head reads as a key that never existed). Empty when the key changed again later.
   */
  deletedKeyRecords(store: string, key: Uint8Array, changedAt: number): Uint8Array[] {
    const escKey = escapedBytesKey.encodeNonTerminal(key);
    const headKey = this.headKey(store, escKey);
    const raw = this.db.getSync(headKey);
    if (raw === undefined) return [];
    const { heights } = decodeHead(raw);
    if (heights[heights.length - 1] !== changedAt) return [];
    const nodes: Uint8Array[] = [];
    for (let level = 1; level <= INDEX_LEVELS; level++)
      nodes.push(this.nodeKey(store, escKey, level, rangeOf(level, changedAt)));
    return [headKey, ...nodes];
  }

  /**
   * A rollback of the key's change at `height`, its newest: the head and nodes as they were before it. Null when
   * the records do not show that change (then the index must be rebuilt).
   */
  async undoOps(store: string, key: Uint8Array, height: number): Promise<BatchOp[] | null> {
    const escKey = escapedBytesKey.encodeNonTerminal(key);
    const headKey = this.headKey(store, escKey);
    const raw = await this.db.get(headKey);
    if (raw === undefined) return null;
    const head = decodeHead(raw);
    if (head.heights[head.heights.length - 1] !== height) return null;
    const nodes = new Map<string, IndexNode | undefined>();
    for (const [level, range] of nodesToUndo(head)) {
      const v = await this.db.get(this.nodeKey(store, escKey, level, range));
      nodes.set(`${level}/${range}`, v === undefined ? undefined : decodeNode(level, range, v));
    }
    const undone = undoChange(head, (level, range) => nodes.get(`${level}/${range}`));
    if (!undone) return null;
    return [
      undone.head
        ? { type: "put", key: headKey, value: encodeHead(undone.head) }
        : { type: "del", key: headKey },
      ...this.writeOps(store, escKey, undone.writes),
    ];
  }

  /** A key's head when its only version is at `height` (a snapshot import). */
  importedHead(store: string, key: Uint8Array, height: number): { key: Uint8Array; value: Uint8Array } {
    return {
      key: headKeys.encode([store, key]),
      value: encodeHead({ prev: 0, heights: [height] }),
    };
  }
}
