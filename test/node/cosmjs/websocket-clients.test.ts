import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { Comet38Client, WebsocketClient } from "@cosmjs/tendermint-rpc";
import { TendermintTxTracer } from "@keplr-wallet/cosmos";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { NodeProcess } from "../helpers/chaind-process.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: Keplr's tracer answers untyped JSON
type Json = any;

const alice = testAccount("wsc-alice");
const bob = testAccount("wsc-bob");

/** The first value a stream gives, its subscription then ended. */
function first<T>(stream: {
  subscribe(l: { next(v: T): void; error(e: unknown): void; complete(): void }): { unsubscribe(): void };
}): Promise<T> {
  return new Promise((resolve, reject) => {
    const sub = stream.subscribe({
      next: (v) => {
        queueMicrotask(() => sub.unsubscribe());
        resolve(v);
      },
      error: reject,
      complete: () => reject(new Error("the stream ended")),
    });
  });
}

// A real chaind process; stock client libraries subscribe over ws:// to its /websocket.
describe("WebSocket subscriptions from stock clients (CosmJS, Keplr)", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let rpc: string;
  let api: string;
  let signer: TxSigner;

  const transfer = (amount: string) =>
    signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount }],
      }),
    ]);
  const hashOf = (tx: Uint8Array) => Buffer.from(sha256(tx)).toString("hex").toUpperCase();
  const broadcastRest = async (tx: Uint8Array) => {
    const res = await fetch(`${api}/cosmos/tx/v1beta1/txs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tx_bytes: Buffer.from(tx).toString("base64"), mode: "BROADCAST_MODE_SYNC" }),
    });
    const body = (await res.json()) as Json;
    expect(body.tx_response?.code, JSON.stringify(body)).toBe(0);
  };

  beforeAll(async () => {
    home = makeTestHome({
      chainId: "ws-clients-1",
      accounts: [
        { account: alice, coins: "100000000stake" },
        { account: bob, coins: "100000000stake" },
      ],
      tuneApp: (c) => {
        c.api.enable = true;
      },
      tuneNode: (c) => {
        c.rpc.laddr = "tcp://127.0.0.1:0";
        c.consensus.timeoutCommitMs = 200;
      },
    });
    signer = new TxSigner(alice, 0n, home.chainId);
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    api = (await node.waitFor(/\bapi listening address=(\S+)/))[1].replace(/^tcp:/, "http:");
    await node.waitFor(/committed block .*height=2/);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  it("CosmJS Comet38Client over ws:// receives new blocks and a Tx by query", async () => {
    const client = Comet38Client.create(new WebsocketClient(rpc.replace(/^http/, "ws")));
    try {
      const block = await first(client.subscribeNewBlock());
      expect(block.header.chainId).toBe("ws-clients-1");
      expect(block.header.height).toBeGreaterThan(2);
      const header = await first(client.subscribeNewBlockHeader());
      expect(header.height).toBeGreaterThan(block.header.height - 1);

      const tx = await transfer("11");
      const seen = first(
        client.subscribeTx(`tm.event='Tx' AND tx.hash='${hashOf(tx)}' AND message.sender='${alice.address}'`),
      );
      // Sent once the subscription is in place: a call on the same socket answers after it.
      expect((await client.status()).nodeInfo.network).toBe("ws-clients-1");
      await broadcastRest(tx);
      const event = await seen;
      expect(Buffer.from(event.tx)).toEqual(Buffer.from(tx));
      expect(event.result.code).toBe(0);
      expect(event.height).toBeGreaterThan(block.header.height);
      expect(event.result.events.some((e: { type: string }) => e.type === "transfer")).toBe(true);
      // The block by height over the same socket names the tx.
      const committed = await client.block(event.height);
      expect(committed.block.txs.map((t) => hashOf(t))).toContain(hashOf(tx));
    } finally {
      client.disconnect();
    }
  });

  it("Keplr's TendermintTxTracer sees new blocks and confirms a tx sent through REST", async () => {
    const tracer = new TendermintTxTracer(rpc, "/websocket", {
      wsObject: WebSocket as unknown as new (url: string) => globalThis.WebSocket,
    });
    try {
      const block = await new Promise<Json>((resolve) => {
        const stop = tracer.subscribeBlock((b) => {
          stop();
          resolve(b);
        });
      });
      expect(block.block.header.chain_id).toBe("ws-clients-1");

      const tx = await transfer("13");
      const hash = Buffer.from(sha256(tx));
      // subscribeTx resolves only from the Tx event (traceTx also polls the tx method every 10 s).
      const subscribed = tracer.subscribeTx(hash);
      // Its answer (not found yet) comes after the server took the subscriptions sent before it on this socket.
      await expect(tracer.queryTx(hash)).rejects.toThrow(/not found/);
      await broadcastRest(tx);
      const result = await subscribed;
      expect(result.code ?? 0).toBe(0);
      expect(Number(result.gas_used)).toBeGreaterThan(0);
      expect(result.events.some((e: Json) => e.type === "transfer")).toBe(true);
      // traceTx, as a wallet calls it, now finds the committed tx at once.
      const confirmed = await tracer.traceTx(hash);
      expect(Number(confirmed.gas_used)).toBe(Number(result.gas_used));
    } finally {
      tracer.close();
    }
  });
});
