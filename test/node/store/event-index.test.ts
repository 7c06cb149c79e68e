import { create } from "@bufbuild/protobuf";
import { BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { afterEach, describe, expect, it } from "vitest";
import type { AbciEvent } from "../../../node/src/app/events.js";
import type { TxResult } from "../../../node/src/app/tx-result.js";
import type { BlockResults } from "../../../node/src/consensus/block-results.js";
import { BlockStore, type TxLocation } from "../../../node/src/consensus/block-store.js";
import { BlockStoreKeys } from "../../../node/src/consensus/block-store-keys.js";
import { sha256 } from "../../../node/src/crypto/sha256.js";
import { ChangeSet } from "../../../node/src/store/change-set.js";
import { BLOCK_STORE_KEYSPACES } from "../../../node/src/store/keyspaces.js";
import { uint32Key } from "../../../node/src/store/uint-keys.js";
import { countKeyspace, openTempStateStore, type TempStateStore } from "./temp-state-store.js";

const SEND = "/sdk.bank.v1beta1.MsgSend";

function event(type: string, attrs: [string, string, boolean?][]): AbciEvent {
  return { type, attributes: attrs.map(([key, value, index]) => ({ key, value, index: index ?? true })) };
}

function txResult(events: AbciEvent[]): TxResult {
  return {
    code: 0,
    codespace: "",
    log: "",
    info: "",
    data: new Uint8Array(),
    gasWanted: 1n,
    gasUsed: 1n,
    events,
  };
}

/** Saves block `height` with `txs` and commits it with the records BlockStore.ops makes of `txResults`. */
async function commitBlock(t: TempStateStore, blocks: BlockStore, txResults: TxResult[], legacy = false) {
  const height = t.store.nextHeight;
  const txs = txResults.map((_, i) => Uint8Array.of(height, i));
  const block = create(BlockSchema, { header: { height: BigInt(height) }, data: { txs } });
  await blocks.save(block, create(BlockMetaSchema, { blockId: { hash: sha256(Uint8Array.of(height)) } }));
  const res: BlockResults = { height, txResults, events: [] };
  let ops = blocks.ops(res, txs.map(sha256));
  if (legacy) {
    // What a binary from before grouping wrote: one empty record per tx and pair, its index in the key.
    const grouped = ops.filter((op) => op.key[0] === BLOCK_STORE_KEYSPACES.txEvents);
    ops = ops.filter((op) => op.key[0] !== BLOCK_STORE_KEYSPACES.txEvents);
    for (const op of grouped) {
      if (op.type !== "put") continue;
      for (let at = 0; at < op.value.length; at += 4)
        ops.push({
          type: "put",
          key: new Uint8Array([...op.key, ...op.value.subarray(at, at + 4)]),
          value: new Uint8Array(),
        });
    }
  }
  await t.store.commit(height, new ChangeSet(), ops);
}

async function found(blocks: BlockStore, composite: string, value: string): Promise<TxLocation[]> {
  const out: TxLocation[] = [];
  for await (const loc of blocks.txsWithEvent(composite, value)) out.push(loc);
  return out;
}

describe("tx event index", () => {
  let t: TempStateStore | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  const block1 = [
    txResult([
      event("message", [
        ["action", SEND],
        ["sender", "alice"],
      ]),
    ]),
    // The same pair twice in one tx is one hit; an attribute not marked for indexing is none.
    txResult([
      event("message", [
        ["action", SEND],
        ["sender", "bob"],
      ]),
      event("transfer", [
        ["sender", "bob"],
        ["memo", "secret", false],
      ]),
      event("transfer", [["sender", "bob"]]),
    ]),
    txResult([
      event("message", [
        ["action", SEND],
        ["sender", "alice"],
        ["odd", "a\0b"],
      ]),
    ]),
  ];

  it("writes one record per pair and block, and finds every tx carrying it in order", async () => {
    t = await openTempStateStore();
    const blocks = await BlockStore.open(t.store);
    await commitBlock(t, blocks, block1);
    await commitBlock(t, blocks, [
      txResult([
        event("message", [
          ["action", SEND],
          ["sender", "bob"],
        ]),
      ]),
    ]);

    expect(await found(blocks, "message.action", SEND)).toEqual([
      { height: 1, index: 0 },
      { height: 1, index: 1 },
      { height: 1, index: 2 },
      { height: 2, index: 0 },
    ]);
    expect(await found(blocks, "message.sender", "alice")).toEqual([
      { height: 1, index: 0 },
      { height: 1, index: 2 },
    ]);
    expect(await found(blocks, "transfer.sender", "bob")).toEqual([{ height: 1, index: 1 }]);
    expect(await found(blocks, "transfer.memo", "secret")).toEqual([]);
    expect(await found(blocks, "message.odd", "a\0b")).toEqual([]);
    // Block 1: action, sender alice, sender bob, transfer.sender bob; block 2: action, sender bob.
    expect(await countKeyspace(t.store, BLOCK_STORE_KEYSPACES.txEvents)).toBe(6);
  });

  it("finds the txs of two event types whose type.key spell the same name", async () => {
    t = await openTempStateStore();
    const blocks = await BlockStore.open(t.store);
    await commitBlock(t, blocks, [
      txResult([event("a.b", [["c", "v"]])]),
      txResult([event("a", [["b.c", "v"]])]),
      txResult([event("a.b", [["c", "v"]]), event("a", [["b.c", "v"]])]),
    ]);
    expect(await found(blocks, "a.b.c", "v")).toEqual([
      { height: 1, index: 0 },
      { height: 1, index: 1 },
      { height: 1, index: 2 },
    ]);
  });

  it("reads the layout written before grouping, and a rollback removes either layout", async () => {
    t = await openTempStateStore();
    const blocks = await BlockStore.open(t.store);
    await commitBlock(t, blocks, block1, true);
    await commitBlock(t, blocks, [
      txResult([
        event("message", [
          ["action", SEND],
          ["sender", "alice"],
        ]),
      ]),
    ]);
    // Block 1's records are one per tx: a key ending in the tx's index.
    const legacyKey = new Uint8Array([
      ...BlockStoreKeys.txEvents.encode(["message.sender", "alice", 1]),
      ...uint32Key.encode(2),
    ]);
    expect(await t.store.db.get(legacyKey)).toBeDefined();
    expect(await found(blocks, "message.sender", "alice")).toEqual([
      { height: 1, index: 0 },
      { height: 1, index: 2 },
      { height: 2, index: 0 },
    ]);

    const eventRecords = () => countKeyspace(t!.store, BLOCK_STORE_KEYSPACES.txEvents);
    const before = await eventRecords();
    await t.store.db.batch(await blocks.recordsRemovalOps(2));
    expect(await eventRecords()).toBe(before - 2);
    await t.store.db.batch(await blocks.recordsRemovalOps(1));
    expect(await eventRecords()).toBe(0);
    expect(await found(blocks, "message.action", SEND)).toEqual([]);
  });
});
