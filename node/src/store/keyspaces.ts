/**
 * The one registry of key prefixes in the node's LevelDB. Each keyspace is one byte; a retired prefix is never
 * reused, so an old database can never be misread by a newer binary.
 *
 * `esc(x)` escapes 0x00 as 0x00 0xFF; `T` is the terminator 0x00 0x00 (escaped-bytes-key.ts). Heights are
 * 8-byte big-endian. Each layout is a key codec: state-store-keys.ts and consensus/block-store-keys.ts.
 */
export const KEYSPACE = {
  /**
   * 0x00 | "commit" -> JSON {height, appHash, earliest}: the last committed block and oldest readable height.
   * 0x00 | "stateDigest" -> 512 bytes: the digest of the latest committed state (state-digest.ts).
   * 0x00 | "genesis" -> JSON: genesis.json without app_state, what `start` needs of it once the chain has begun.
   */
  meta: 0x00,
  /** 0x01 | esc(store) T | key -> value: the latest value of every live key, for O(1) reads. */
  latest: 0x01,
  /** 0x02 | esc(store) T | esc(key) T | height -> 0x01 value | 0x00 (deleted): every version, for reads at a height. */
  versions: 0x02,
  /** 0x03 | height | esc(store) T | key -> empty: what changed at a height, so pruning and rollback touch only that. */
  changes: 0x03,
  /**
   * 0x04 | esc(store) T | esc(key) T -> range (8) | prev (8) | 2-byte offsets: a key's history head, the heights it
   * changed at within the range of 1024 holding its newest change, and its last change before (history-nodes.ts).
   */
  historyHeads: 0x04,
  /**
   * 0x05 | esc(store) T | esc(key) T | level (4) | range (8) -> prev (8) | offsets (2 bytes at level 1, else 4): a
   * closed range of a key's history: the heights it changed at (level 1) or each closed child's last change.
   */
  historyNodes: 0x05,
} as const;

/**
 * 0x06-0x0f: free for the state store. 0x10-0x1f: reserved for the block store (consensus/block-store.ts), which
 * writes them through `StateStore.db` and the extra ops of `StateStore.commit`, in the same batch as the block's
 * state. Retired prefixes (none yet) are listed here and never handed out again.
 */
export const BLOCK_STORE_KEYSPACES = {
  /** 0x10 | height -> tendermint.types.Block */
  blocks: 0x10,
  /** 0x11 | height -> tendermint.types.BlockMeta (block id, size, header, tx count) */
  blockMetas: 0x11,
  /** 0x12 | block hash -> height */
  blockHashes: 0x12,
  /** 0x13 | height -> block results (JSON: tx results and block events) */
  results: 0x13,
  /** 0x14 | tx hash -> height (8 bytes) | index (4 bytes) */
  txIndex: 0x14,
  /**
   * 0x15 | "type.key" 0x00 | value 0x00 | height (8) -> the indexes (4 bytes each) of that block's txs with the
   * attribute; homes written before grouping also hold 0x15 | ... | height (8) | index (4) -> empty.
   */
  txEvents: 0x15,
} as const;
