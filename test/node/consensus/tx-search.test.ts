import { create } from "@bufbuild/protobuf";
import { BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AbciEvent } from "../../../node/src/app/events.js";
import type { TxResult } from "../../../node/src/app/tx-result.js";
import { BlockStore, type TxLocation } from "../../../node/src/consensus/block-store.js";
import { parseTxQuery, searchTxs } from "../../../node/src/consensus/tx-search.js";
import { sha256 } from "../../../node/src/crypto/sha256.js";
import { ChangeSet } from "../../../node/src/store/change-set.js";
import { openTempStateStore, type TempStateStore } from "../store/temp-state-store.js";

const SENDERS = ["alice", "bob", "carol"];

/** Tx `i` of block `height`: sent by one of three senders, to bob when its index is even. */
function txEvents(height: number, index: number): AbciEvent[] {
  const attr = (key: string, value: string) => ({ key, value, index: true });
  const events = [{ type: "message", attributes: [attr("sender", SENDERS[(height + index) % 3])] }];
  if (index % 2 === 0) events.push({ type: "transfer", attributes: [attr("recipient", "bob")] });
  return events;
}

const txResult = (events: AbciEvent[]): TxResult => ({
  code: 0,
  codespace: "",
  log: "",
  info: "",
  data: new Uint8Array(),
  gasWanted: 1n,
  gasUsed: 1n,
  events,
});

/** How many txs block `height` holds: 0 to 4, blocks without txs among them. */
const txCount = (height: number) => (height * 7) % 5;

const HEIGHTS = 40;

/** Every tx of the chain with its events, oldest first: what a search must agree with. */
function allTxs(): { loc: TxLocation; events: AbciEvent[] }[] {
  const out = [];
  for (let height = 1; height <= HEIGHTS; height++)
    for (let index = 0; index < txCount(height); index++)
      out.push({ loc: { height, index }, events: txEvents(height, index) });
  return out;
}

/** The answer of collecting every match, then slicing the page: the search before it streamed. */
function expected(query: string, page: number, perPage: number, order: "asc" | "desc") {
  const conditions = parseTxQuery(query);
  const matches = allTxs()
    .filter(({ loc, events }) =>
      conditions.every((c) => {
        if (c.key === "tx.hash")
          return Buffer.from(sha256(Uint8Array.of(loc.height, loc.index))).toString("hex") === c.value;
        if (c.key !== "tx.height")
          return events.some((e) =>
            e.attributes.some((a) => `${e.type}.${a.key}` === c.key && a.value === c.value),
          );
        const n = Number(c.value);
        return {
          "=": loc.height === n,
          "<": loc.height < n,
          "<=": loc.height <= n,
          ">": loc.height > n,
          ">=": loc.height >= n,
        }[c.op];
      }),
    )
    .map((t) => t.loc);
  if (order === "desc") matches.reverse();
  return { locations: matches.slice((page - 1) * perPage, page * perPage), total: matches.length };
}

describe("tx_search streamed over the block store", () => {
  let t: TempStateStore;
  let blocks: BlockStore;

  beforeAll(async () => {
    t = await openTempStateStore();
    blocks = await BlockStore.open(t.store);
    for (let height = 1; height <= HEIGHTS; height++) {
      const txs = Array.from({ length: txCount(height) }, (_, i) => Uint8Array.of(height, i));
      const block = create(BlockSchema, { header: { height: BigInt(height) }, data: { txs } });
      await blocks.save(
        block,
        create(BlockMetaSchema, {
          blockId: { hash: sha256(Uint8Array.of(height)) },
          numTxs: BigInt(txs.length),
        }),
      );
      const txResults = txs.map((_, i) => txResult(txEvents(height, i)));
      await t.store.commit(
        height,
        new ChangeSet(),
        blocks.ops({ height, txResults, events: [] }, txs.map(sha256)),
      );
    }
    // A block saved but not applied (a node halted in it): its txs have no results yet, and are not found.
    const pending = [Uint8Array.of(HEIGHTS + 1, 0)];
    await blocks.save(
      create(BlockSchema, { header: { height: BigInt(HEIGHTS + 1) }, data: { txs: pending } }),
      create(BlockMetaSchema, { blockId: { hash: sha256(Uint8Array.of(HEIGHTS + 1)) }, numTxs: 1n }),
    );
  });
  afterAll(() => t.cleanup());

  it("pages through heights, events, several terms and hashes in either order, as collecting every match would", async () => {
    const hash = Buffer.from(sha256(Uint8Array.of(12, 1))).toString("hex");
    const queries = [
      "tx.height>0",
      "tx.height>=5 AND tx.height<31",
      `tx.height=${HEIGHTS + 1}`,
      "message.sender='alice'",
      "message.sender='bob' AND tx.height>3 AND tx.height<=30",
      "message.sender='carol' AND transfer.recipient='bob'",
      "transfer.recipient='bob' AND message.sender='nobody'",
      `tx.hash='${hash}'`,
      `tx.hash='${hash}' AND tx.height>12`,
      `tx.hash='${hash}' AND message.sender='${SENDERS[13 % 3]}'`,
    ];
    for (const query of queries)
      for (const order of ["asc", "desc"] as const)
        for (const perPage of [1, 4, 7, 100])
          for (let page = 1; page <= Math.ceil(allTxs().length / perPage) + 1; page++) {
            const got = await searchTxs(blocks, parseTxQuery(query), { page, perPage, order });
            expect(got, `${query} ${order} page ${page} of ${perPage}`).toEqual(
              expected(query, page, perPage, order),
            );
          }
  });

  it("stops with the signal's reason once its caller gives up", async () => {
    const gone = new Error("the client left");
    const controller = new AbortController();
    controller.abort(gone);
    for (const query of ["tx.height>0", "message.sender='alice'"])
      await expect(
        searchTxs(blocks, parseTxQuery(query), {
          page: 1,
          perPage: 10,
          order: "asc",
          signal: controller.signal,
        }),
      ).rejects.toBe(gone);
  });
});
