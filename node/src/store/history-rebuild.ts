import type { Level } from "level";
import { encodeHead, encodeNode, type IndexNode, recordChange } from "./history-nodes.js";
import { prefixEnd } from "./prefix-end.js";
import { isVersionIn, StateStoreKeys, splitVersionKey } from "./state-store-keys.js";

type Db = Level<Uint8Array, Uint8Array>;

const { versions: versionKeys, historyHeads: headKeys, historyNodes: nodeKeys } = StateStoreKeys;

/** Records per batch while rebuilding: bounded memory whatever the history's size. */
const REBUILD_BATCH_OPS = 10_000;

/**
 * Builds the history index of a database written without one (or by a binary that did not keep it) in one pass
 * over the versions keyspace: each key's versions are contiguous and oldest first, so one key's records are in
 * memory at a time. What the index held before is cleared first.
 */
export async function rebuildHistoryIndex(db: Db): Promise<{ keys: number; versions: number }> {
  await db.clear({ gte: headKeys.prefix, lt: prefixEnd(headKeys.prefix)! });
  await db.clear({ gte: nodeKeys.prefix, lt: prefixEnd(nodeKeys.prefix)! });
  let batch = db.batch();
  let keys = 0;
  let versions = 0;
  let current: { group: Uint8Array; store: string; key: Uint8Array } | undefined;
  let head: IndexNode | undefined;
  /** Level-2 and level-3 nodes of the current key, rewritten as ranges close: written when the key is done. */
  let parents = new Map<string, { level: number; range: number; node: IndexNode }>();
  const flushKey = async () => {
    if (!current || !head) return;
    const { store, key } = current;
    batch.put(headKeys.encode([store, key]), encodeHead(head));
    for (const { level, range, node } of parents.values())
      batch.put(nodeKeys.encode([store, key, level, range]), encodeNode(level, range, node));
    keys++;
    await flushBatchIfFull();
  };
  const flushBatchIfFull = async () => {
    if (batch.length < REBUILD_BATCH_OPS) return;
    await batch.write();
    batch = db.batch();
  };
  for await (const k of db.keys({ gte: versionKeys.prefix, lt: prefixEnd(versionKeys.prefix)! })) {
    const { group, height } = splitVersionKey(k);
    if (!current || !isVersionIn(k, current.group)) {
      await flushKey();
      const [store, key] = versionKeys.decode(k);
      current = { group: new Uint8Array(group), store, key };
      head = undefined;
      parents = new Map();
    }
    const { store, key } = current;
    const result = recordChange(head, height, (level, range) => parents.get(`${level}/${range}`)?.node);
    head = result.head;
    for (const { level, range, node } of result.writes) {
      // recordChange only writes nodes here (nothing is deleted); closed level-1 nodes are final at once.
      if (!node) continue;
      if (level === 1) batch.put(nodeKeys.encode([store, key, level, range]), encodeNode(level, range, node));
      else parents.set(`${level}/${range}`, { level, range, node });
    }
    versions++;
    await flushBatchIfFull();
  }
  await flushKey();
  await batch.write();
  return { keys, versions };
}
