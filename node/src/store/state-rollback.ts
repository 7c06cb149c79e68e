import { prefixEnd } from "./prefix-end.js";
import { type BatchOp, commitMetaOp, HISTORY_INDEX_FORMAT, type StateStore } from "./state-store.js";
import { STATE_DIGEST_KEY, StateStoreKeys, splitVersionKey, versionInGroup } from "./state-store-keys.js";

const { latest: latestKeys, versions: versionKeys, changes: changeKeys } = StateStoreKeys;

/** A rollback the state cannot take: nothing before the latest height, or that state was pruned. */
export class StateRollbackError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "StateRollbackError";
  }
}

/**
 * The (store, key) pairs written at `height`. The change log names them; a node pruning nothing keeps no change
 * log, so then each key's versions are looked at with one seek to `height` (a walk over every key, not every
 * version).
 */
async function keysChangedAt(store: StateStore, height: number): Promise<[string, Uint8Array][]> {
  const changed: [string, Uint8Array][] = [];
  for await (const k of store.db.keys({
    gte: changeKeys.prefixOf(height),
    lt: changeKeys.prefixOf(height + 1),
  })) {
    const [, name, key] = changeKeys.decode(k);
    changed.push([name, key]);
  }
  if (changed.length > 0) return changed;
  const it = store.db.keys({ gte: versionKeys.prefix, lt: prefixEnd(versionKeys.prefix) });
  try {
    let k = await it.next();
    while (k !== undefined) {
      const { group, height: h } = splitVersionKey(k);
      if (h === height) {
        const [name, key] = versionKeys.decode(k);
        changed.push([name, key]);
      }
      // Versions of a key are ordered by height: below it, jump to it; at or past it, on to the next key.
      if (h < height) it.seek(versionInGroup(group, height));
      else it.seek(prefixEnd(group)!);
      k = await it.next();
    }
  } finally {
    await it.close();
  }
  return changed;
}

/**
 * The batch ops that take the state from its latest height H back to H-1, as a rollback of the last block: each
 * key H wrote gets its latest value back from its version at H-1 (or is removed, if H created it), H's versions
 * and change records go, and the meta record says H-1 with `appHashBefore` (block H's header holds it). The
 * caller writes them in one batch, with whatever else goes with block H.
 */
export async function stateRollbackOps(store: StateStore, appHashBefore: Uint8Array): Promise<BatchOp[]> {
  const height = store.latestHeight;
  if (height === 0) throw new StateRollbackError("nothing to roll back: no block has been committed");
  if (height === 1)
    throw new StateRollbackError(
      "cannot roll back from height 1: there is no earlier committed state to return to",
    );
  const target = height - 1;
  if (target < store.earliestHeight)
    throw new StateRollbackError(
      `cannot roll back to height ${target}: its state was pruned (earliest retained height ${store.earliestHeight})`,
    );
  const ops: BatchOp[] = [];
  let indexUndone = store.historyIndexed;
  const digest = store.stateDigest;
  for (const [name, key] of await keysChangedAt(store, height)) {
    const before = await store.get(name, key, target);
    const at = await store.get(name, key);
    if (at !== undefined) digest.remove(name, key, at);
    if (before !== undefined) digest.add(name, key, before);
    const latestKey = latestKeys.encode([name, key]);
    ops.push(
      before === undefined ? { type: "del", key: latestKey } : { type: "put", key: latestKey, value: before },
      { type: "del", key: versionKeys.encode([name, key, height]) },
      { type: "del", key: changeKeys.encode([height, name, key]) },
    );
    const undo = indexUndone ? await store.history.undoOps(name, key, height) : null;
    if (undo) ops.push(...undo);
    // Records that do not show this change: the meta record says the index is missing, so the next open builds it.
    else indexUndone = false;
  }
  ops.push(
    commitMetaOp({
      height: target,
      appHash: Buffer.from(appHashBefore).toString("hex"),
      earliest: store.earliestHeight,
      ...(indexUndone ? { historyIndex: HISTORY_INDEX_FORMAT } : {}),
    }),
    { type: "put", key: STATE_DIGEST_KEY, value: digest.bytes() },
  );
  return ops;
}
