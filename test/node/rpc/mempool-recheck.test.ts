import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import {
  QueryAccountRequestSchema,
  QueryAccountResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { type LoggedLine, recordingLogger } from "../helpers/recording-logger.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, type TestAccount, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are checked field by field below
type Json = any;

const sender = testAccount("recheck-sender");
const crowd = Array.from({ length: 16 }, (_, i) => testAccount(`recheck-crowd-${i}`));
const filler = testAccount("recheck-filler");
const spender = testAccount("recheck-spender");
const sink = testAccount("recheck-sink").address;

// Blocks of at most 10 txs every 20 ms: a client sending hundreds of txs in order sees many commits between them.
describe("mempool recheck after each commit (CometBFT's Recheck)", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let server: NodeServer;
  const logs: LoggedLine[] = [];

  const rpc = async (method: string, params: unknown = {}): Promise<Json> => {
    const res = await fetch(server.address, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await res.json()) as Json).result;
  };
  const broadcast = (tx: Uint8Array) => rpc("broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") });
  const send = (from: TestAccount, amount: string) =>
    anyOf(MsgSendSchema, {
      fromAddress: from.address,
      toAddress: sink,
      amount: [{ denom: "stake", amount }],
    });
  const sequenceOf = async (a: TestAccount) => {
    const data = toBinary(
      QueryAccountRequestSchema,
      create(QueryAccountRequestSchema, { address: a.address }),
    );
    const r = await rpc("abci_query", {
      path: "/cosmos.auth.v1beta1.Query/Account",
      data: Buffer.from(data).toString("hex"),
    });
    const acc = fromBinary(QueryAccountResponseSchema, Buffer.from(r.response.value, "base64")).account;
    return fromBinary(BaseAccountSchema, acc!.value).sequence;
  };
  const hashOf = (tx: Uint8Array) => Buffer.from(sha256(tx)).toString("hex").toUpperCase();
  async function waitCommitted(txs: Uint8Array[]): Promise<Json[]> {
    const out: Json[] = [];
    for (const tx of txs) {
      for (;;) {
        const r = await rpc("tx", { hash: hashOf(tx) });
        if (r) {
          out.push(r);
          break;
        }
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return out;
  }

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [sender, ...crowd, filler, spender].map((account) => ({
        account,
        coins: account === spender ? "10000stake" : "100000000stake",
      })),
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 20;
        c.consensus.maxBlockTxs = 10;
      },
    });
    node = await ChainNode.open(
      { home: home.home, definition: TEST_DEFINITION },
      { logger: recordingLogger(logs) },
    );
    server = (await startRpcServer(node, { logger: recordingLogger([]) }))!;
    await node.producer.produce();
  });
  afterAll(async () => {
    await node.producer.stop();
    await server.close();
    await node.close();
    home.cleanup();
  });

  it("takes 500 txs of one account sent back to back across many blocks, and commits every one", async () => {
    const runner = node.producer.start();
    onTestFinished(async () => {
      await node.producer.stop();
      await runner;
    });
    const signer = new TxSigner(sender, 0n, home.chainId);
    const sent: Uint8Array[] = [];
    const startHeight = node.blocks.height;
    for (let i = 0; i < 500; i++) {
      const tx = await signer.sign([send(sender, "1")], "2000", 200_000n);
      const r = await broadcast(tx);
      expect(r.code, `tx ${i}: ${r.log}`).toBe(0);
      sent.push(tx);
    }
    const results = await waitCommitted(sent);
    expect(results.every((r) => r.tx_result.code === 0)).toBe(true);
    // Many blocks came and went while the client sent: the recheck carried its sequences over each.
    expect(new Set(results.map((r) => r.height)).size).toBeGreaterThanOrEqual(50);
    expect(node.blocks.height - startHeight).toBeGreaterThanOrEqual(50);
    expect(await sequenceOf(sender)).toBe(500n);
  });

  it("takes 16 accounts sending 10 txs each at once, and commits every one", async () => {
    const runner = node.producer.start();
    onTestFinished(async () => {
      await node.producer.stop();
      await runner;
    });
    const sent = await Promise.all(
      crowd.map(async (a, n) => {
        const signer = new TxSigner(a, BigInt(n + 1), home.chainId);
        const txs: Uint8Array[] = [];
        for (let i = 0; i < 10; i++) {
          const tx = await signer.sign([send(a, "1")], "2000", 200_000n);
          const r = await broadcast(tx);
          expect(r.code, `${a.address} tx ${i}: ${r.log}`).toBe(0);
          txs.push(tx);
        }
        return txs;
      }),
    );
    const results = await waitCommitted(sent.flat());
    expect(results.every((r) => r.tx_result.code === 0)).toBe(true);
    for (const a of crowd) expect(await sequenceOf(a)).toBe(10n);
  });

  it("evicts a tx a block made invalid (its fee spent by an earlier tx), and says so", async () => {
    // Ten txs fill the next block; the spender's second tx waits for the one after.
    const fill = new TxSigner(filler, 17n, home.chainId);
    for (let i = 0; i < 9; i++) expect((await broadcast(await fill.sign([send(filler, "1")]))).code).toBe(0);
    const spend = new TxSigner(spender, 18n, home.chainId);
    // CheckTx charges fees only: after the first, 9500 remain there, enough for the second's 2000 fee.
    const first = await spend.sign([send(spender, "9000")], "500");
    const second = await spend.sign([send(spender, "1")], "2000");
    expect((await broadcast(first)).code).toBe(0);
    expect((await broadcast(second)).code).toBe(0);
    expect((await rpc("unconfirmed_txs")).txs).toContain(Buffer.from(second).toString("base64"));

    await node.producer.produce();

    // The first spent all but 500: the second cannot pay its fee any more.
    expect(await sequenceOf(spender)).toBe(1n);
    const pending = await rpc("unconfirmed_txs");
    expect(pending).toMatchObject({ n_txs: "0", total: "0", total_bytes: "0", txs: [] });
    expect(await rpc("tx", { hash: hashOf(second) })).toBeUndefined();
    const evicted = logs.find((l) => l.msg === "evicted tx from mempool on recheck");
    expect(evicted?.ctx).toMatchObject({ hash: hashOf(second), code: 5 });
    expect(String(evicted?.ctx?.log)).toContain("insufficient funds to pay for fees");
    // Sent again, it is refused for the same reason at once.
    expect((await broadcast(second)).log).toContain("insufficient funds to pay for fees");
  });
});
