import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import {
  GetTxsEventRequestSchema,
  GetTxsEventResponseSchema,
  OrderBy,
} from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { anyOf } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");
const bob = testAccount("bob");

/** An answer cap that 3 of the big txs below fit in (each about 27 KB of base64), and not 4. */
const MAX_RESPONSE_BYTES = 100_000;
const MEMO_CHARS = 20_000;

/**
 * Pages of txs, the mempool and whole blocks are measured while they are built: what would pass
 * max_response_bytes is refused (or, for the mempool, cut short) before the rest is read.
 */
describe("answers measured against max_response_bytes while they are built", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let server: NodeServer;
  let sequence = 0n;
  let bigBlock: number;

  const rpc = async (method: string, params: Record<string, unknown> = {}): Promise<Json> => {
    const res = await fetch(server.address, {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return res.json();
  };
  const send = (memo = "") =>
    signTxDirect(
      {
        messages: [
          anyOf(MsgSendSchema, {
            fromAddress: alice.address,
            toAddress: bob.address,
            amount: [{ denom: "stake", amount: "1" }],
          }),
        ],
        memo,
        fee: { amount: [{ denom: "stake", amount: "100" }], gasLimit: 400_000n },
      },
      [alice.signer(0n, sequence++)],
      home.chainId,
    );
  const txsEvent = async (req: { query: string; limit?: bigint; page?: bigint; orderBy?: OrderBy }) => {
    const data = toBinary(GetTxsEventRequestSchema, create(GetTxsEventRequestSchema, req));
    const res = await node.app.query("/sdk.tx.v1beta1.Service/GetTxsEvent", data);
    return fromBinary(GetTxsEventResponseSchema, res.value);
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000000stake" }],
      tuneNode: (c) => {
        c.rpc.maxResponseBytes = MAX_RESPONSE_BYTES;
      },
      tuneGenesis: (g) => {
        // biome-ignore lint/suspicious/noExplicitAny: the genesis JSON, edited in place
        const auth = g.app_state.auth as any;
        auth.params = { ...auth.params, max_memo_characters: String(MEMO_CHARS) };
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    server = (await startRpcServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
    // 6 big txs wait in the mempool.
    for (let i = 0; i < 6; i++)
      expect((await node.mempool.add(await send("m".repeat(MEMO_CHARS)))).code).toBe(0);
  });
  afterAll(async () => {
    await server.close();
    await node.close();
    home.cleanup();
  });

  it("unconfirmed_txs answers the txs from the mempool's head that fit, and n_txs says how many", async () => {
    const { result } = await rpc("unconfirmed_txs", { limit: "100" });
    expect(result).toMatchObject({ n_txs: "3", total: "6" });
    expect(result.txs).toHaveLength(3);
    expect(Buffer.from(result.txs[0], "base64")).toEqual(Buffer.from(node.mempool.txs(1)[0]));
  });

  it("block refuses a block whose txs pass the cap before building it, naming the setting", async () => {
    bigBlock = (await node.producer.produce()).height;
    const { error } = await rpc("block", { height: String(bigBlock) });
    expect(error.code).toBe(-32603);
    expect(error.data).toMatch(
      new RegExp(
        `^block ${bigBlock} cannot be sent: its txs alone take \\d+ bytes of JSON, more than max_response_bytes \\(${MAX_RESPONSE_BYTES}\\) in config.toml \\[rpc\\]$`,
      ),
    );
    expect((await rpc("block", { height: "1" })).result.block.header.height).toBe("1");
  });

  it("tx_search refuses a page at the tx that passes the cap, and serves the pages that fit", async () => {
    const all = await rpc("tx_search", { query: `tx.height=${bigBlock}`, per_page: "100" });
    expect(all.error.data).toBe(
      `the txs of this page exceed max_response_bytes (${MAX_RESPONSE_BYTES}) at tx 4 of 6; ask for fewer per page (per_page)`,
    );
    const hashes: string[] = [];
    for (const page of ["1", "2", "3"]) {
      const { result } = await rpc("tx_search", { query: `tx.height=${bigBlock}`, per_page: "2", page });
      expect(result.total_count).toBe("6");
      expect(result.txs.map((t: Json) => t.index)).toEqual([0, 1].map((i) => i + 2 * (Number(page) - 1)));
      hashes.push(...result.txs.map((t: Json) => t.hash));
    }
    // The same txs as tx finds them by hash, whole.
    const one = await rpc("tx", { hash: hashes[5] });
    expect(one.result).toMatchObject({ hash: hashes[5], height: String(bigBlock), index: 5 });
    expect(Buffer.from(one.result.tx, "base64").length).toBeGreaterThan(MEMO_CHARS);
  });

  it("GetTxsEvent answers at most 100 txs a page, as the SDK on CometBFT, and pages past them", async () => {
    for (let i = 0; i < 101; i++) expect((await node.mempool.add(await send())).code).toBe(0);
    const small = (await node.producer.produce()).height;
    const query = `tx.height>=${bigBlock}`;
    const first = await txsEvent({ query, limit: 1000n });
    expect(first.total).toBe(107n);
    expect(first.txs).toHaveLength(100);
    expect(first.txResponses.map((r) => r.height)).toEqual([
      ...Array(6).fill(BigInt(bigBlock)),
      ...Array(94).fill(BigInt(small)),
    ]);
    const second = await txsEvent({ query, limit: 1000n, page: 2n });
    expect(second.txResponses).toHaveLength(7);
    const newest = await txsEvent({ query, limit: 1n, orderBy: OrderBy.DESC });
    expect(newest.txResponses[0].txhash).toBe(second.txResponses[6].txhash);
    expect(newest.txs[0].body?.memo).toBe("");
  });
});
