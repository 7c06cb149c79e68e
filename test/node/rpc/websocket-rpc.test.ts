import { createConnection, type Socket } from "node:net";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeConfig } from "../../../node/src/config/node-config.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { recordingLogger } from "../helpers/recording-logger.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";
import { JsonRpcSocket } from "../helpers/websocket-client.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers are checked field by field below
type Json = any;

const alice = testAccount("ws-alice");
const bob = testAccount("ws-bob");

/** A running node (a block every timeout_commit) with its RPC server on a free port. */
async function rpcNode(tune: (c: NodeConfig) => void = () => {}) {
  const home = makeTestHome({
    accounts: [
      { account: alice, coins: "100000000stake" },
      { account: bob, coins: "100000000stake" },
    ],
    tuneNode: (c) => {
      c.rpc.laddr = "tcp://127.0.0.1:0";
      tune(c);
    },
  });
  const node = await ChainNode.open(
    { home: home.home, definition: TEST_DEFINITION },
    { logger: recordingLogger([]) },
  );
  const server: NodeServer = (await startRpcServer(node, { logger: recordingLogger([]) }))!;
  await node.producer.produce();
  const runner = node.producer.start();
  const post = async (method: string, params: unknown = {}): Promise<Json> => {
    const res = await fetch(server.address, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return res.json();
  };
  /** Waits until `count` more blocks are committed. */
  const blocksPass = async (count: number) => {
    const target = node.blocks.height + count;
    while (node.blocks.height < target) await new Promise((r) => setTimeout(r, 20));
  };
  const close = async () => {
    await node.producer.stop();
    await runner;
    await server.close();
    await node.close();
    home.cleanup();
  };
  return { home, node, server, post, blocksPass, close };
}

const hashHex = (tx: Uint8Array) => Buffer.from(sha256(tx)).toString("hex").toUpperCase();

describe("JSON-RPC over WebSocket at /websocket", () => {
  let n: Awaited<ReturnType<typeof rpcNode>>;
  let signer: TxSigner;
  const sendTx = () =>
    signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount: "7" }],
      }),
    ]);

  beforeAll(async () => {
    n = await rpcNode();
    signer = new TxSigner(alice, 0n, n.home.chainId);
  });
  afterAll(() => n?.close());

  it("answers every method as HTTP does", async () => {
    const c = await JsonRpcSocket.open(n.server.address);
    const ws = await c.call(11, "block", { height: "1" });
    const http = await n.post("block", { height: "1" });
    expect(ws).toEqual({ ...http, id: 11 });
    expect((await c.call("s", "status")).result.node_info.network).toBe(n.home.chainId);
    // Positional params, as over HTTP.
    expect((await c.call(12, "block", ["1"])).result.block.header.height).toBe("1");
    c.close();
  });

  it("delivers NewBlock, NewBlockHeader and Tx events in CometBFT 0.38's shapes", async () => {
    const c = await JsonRpcSocket.open(n.server.address);
    expect(await c.call(1, "subscribe", { query: "tm.event='NewBlock'" })).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {},
    });
    expect((await c.call(2, "subscribe", ["tm.event = 'NewBlockHeader'"])).result).toEqual({});
    const tx = await sendTx();
    const hash = hashHex(tx);
    const query = `tm.event='Tx' AND tx.hash='${hash}'`;
    expect((await c.call(3, "subscribe", { query })).result).toEqual({});
    // A Tx query on an attribute that no event carries: it must stay silent.
    expect(
      (await c.call(4, "subscribe", { query: `tm.event='Tx' AND message.sender='${bob.address}'` })).result,
    ).toEqual({});
    expect((await n.post("broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") })).result.code).toBe(
      0,
    );

    const txEvent = await c.next((m) => m.id === 3 && m.result?.query);
    const height = txEvent.result.data.value.TxResult.height;
    const block = await c.next((m) => m.id === 1 && m.result?.data?.value.block.header.height === height);
    const results = (await n.post("block_results", { height })).result;
    expect(block.jsonrpc).toBe("2.0");
    expect(block.result.query).toBe("tm.event='NewBlock'");
    expect(block.result.data.type).toBe("tendermint/event/NewBlock");
    expect(Object.keys(block.result.data.value)).toEqual(["block", "block_id", "result_finalize_block"]);
    // The block and its id as the `block` method gives them.
    const viaRpc = (await n.post("block", { height })).result;
    expect(block.result.data.value.block).toEqual(viaRpc.block);
    expect(block.result.data.value.block_id).toEqual(viaRpc.block_id);
    const rfb = block.result.data.value.result_finalize_block;
    expect(rfb.tx_results).toHaveLength(1);
    expect(rfb.tx_results[0].code).toBeUndefined(); // code 0 is left out, as CometBFT's encoder does
    expect(rfb.tx_results[0].gas_used).toMatch(/^[1-9]\d*$/);
    expect(rfb.validator_updates).toBeNull();
    expect(rfb.app_hash).toBe(results.app_hash);
    expect(block.result.events["tm.event"]).toEqual(["NewBlock"]);

    const header = await c.next((m) => m.id === 2 && m.result?.data?.value.header.height === height);
    expect(header.result.data).toEqual({
      type: "tendermint/event/NewBlockHeader",
      value: { header: viaRpc.block.header },
    });
    expect(header.result.events).toEqual({ "tm.event": ["NewBlockHeader"] });

    expect(txEvent.result.query).toBe(query);
    expect(txEvent.result.data.type).toBe("tendermint/event/Tx");
    const r = txEvent.result.data.value.TxResult;
    expect(r.height).toBe(height);
    expect(r.index).toBeUndefined(); // index 0, left out
    expect(r.tx).toBe(Buffer.from(tx).toString("base64"));
    const viaTx = (await n.post("tx", { hash })).result.tx_result;
    expect(r.result.gas_used).toBe(viaTx.gas_used);
    expect(r.result.gas_wanted).toBe(viaTx.gas_wanted);
    expect(r.result.events.map((e: Json) => e.type)).toEqual(viaTx.events.map((e: Json) => e.type));
    expect(txEvent.result.events["tm.event"]).toEqual(["Tx"]);
    expect(txEvent.result.events["tx.hash"]).toEqual([hash]);
    expect(txEvent.result.events["tx.height"]).toEqual([height]);
    expect(txEvent.result.events["message.sender"]).toContain(alice.address);

    // Later blocks: only the NewBlock and header subscriptions hear of them, never the silent query.
    await c.next(
      (m) => m.id === 1 && Number(m.result?.data?.value.block.header.height) === Number(height) + 2,
    );
    expect(c.received.filter((m) => m.id === 4 && m.result?.query)).toEqual([]);
    expect(c.received.filter((m) => m.id === 3 && m.result?.query)).toHaveLength(1);
    c.close();
  });

  it("matches attribute queries with =, <, <=, >, >=, CONTAINS and EXISTS", async () => {
    const c = await JsonRpcSocket.open(n.server.address);
    const h = n.node.blocks.height;
    const queries = [
      `tm.event='Tx' AND message.sender='${alice.address}' AND tx.height>${h}`,
      `tm.event='Tx' AND tx.height>=${h} AND tx.height<${h + 100000}`,
      `transfer.amount CONTAINS '7stake' AND tx.height<=${h + 100000} AND tx.height>${h - 1}.5`,
      "tm.event='Tx' AND transfer.recipient EXISTS",
      `tm.event='Tx' AND tx.height<${h}`, // never true for a tx sent now
    ];
    for (const [i, query] of queries.entries())
      expect((await c.call(100 + i, "subscribe", { query })).result).toEqual({});
    const tx = await sendTx();
    expect((await n.post("broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") })).result.code).toBe(
      0,
    );
    for (let i = 0; i < 4; i++) {
      const e = await c.next((m) => m.id === 100 + i && m.result?.query);
      expect(e.result.data.value.TxResult.tx).toBe(Buffer.from(tx).toString("base64"));
    }
    // Every matching query has answered; the last never does, blocks later.
    await n.blocksPass(2);
    await c.call(200, "health");
    expect(c.received.filter((m) => m.id === 104)).toEqual([{ jsonrpc: "2.0", id: 104, result: {} }]);
    c.close();
  });

  it("unsubscribes one query or all, with CometBFT's errors for what is not subscribed", async () => {
    const c = await JsonRpcSocket.open(n.server.address);
    expect((await c.call(1, "subscribe", { query: "tm.event='NewBlock'" })).result).toEqual({});
    // The same query written differently is the same subscription.
    const again = await c.call(2, "subscribe", { query: "tm.event = 'NewBlock'" });
    expect(again.error).toEqual({ code: -32603, message: "Internal error", data: "already subscribed" });
    expect((await c.call(3, "unsubscribe", { query: "tm.event  =  'NewBlock'" })).result).toEqual({});
    const gone = await c.call(4, "unsubscribe", { query: "tm.event='NewBlock'" });
    expect(gone.error).toEqual({ code: -32603, message: "Internal error", data: "subscription not found" });
    expect((await c.call(5, "unsubscribe_all")).error.data).toBe("subscription not found");
    expect((await c.call(6, "subscribe", { query: "tm.event='NewBlockHeader'" })).result).toEqual({});
    expect((await c.call(7, "unsubscribe_all")).result).toEqual({});
    const from = c.received.length;
    await n.blocksPass(2);
    // A call after the blocks: its answer comes after any of their events would have.
    await c.call(8, "health");
    expect(c.received.slice(from).filter((m) => m.result?.query)).toEqual([]);
    c.close();
  });

  it("answers bad input with CometBFT's errors and keeps serving", async () => {
    const c = await JsonRpcSocket.open(n.server.address);
    c.send("{not json");
    const parse = await c.next((m) => m.error?.code === -32700);
    expect(parse).toMatchObject({ id: null, error: { message: "Parse error. Invalid JSON" } });
    expect(parse.error.data).toMatch(/^error unmarshaling request: /);
    c.send([{ jsonrpc: "2.0", id: 1, method: "health" }]);
    await c.next((m, i = c.received.indexOf(m)) => m.error?.code === -32700 && i > c.received.indexOf(parse));
    expect((await c.call(2, "no_such_method")).error).toMatchObject({
      code: -32601,
      message: "Method not found",
    });
    const bad = await c.call(3, "subscribe", { query: "tm.event='NewBlock' AND" });
    expect(bad.error.code).toBe(-32603);
    expect(bad.error.data).toMatch(/^failed to parse query: /);
    for (const q of ["tm.event > 'x'", "a.b CONTAINS 5", "'x'", "tm.event = DATE 2020-13-45", "x.y ~ 1"]) {
      const e = await c.call(`q ${q}`, "subscribe", { query: q });
      expect(e.error?.data, q).toMatch(/^failed to parse query: /);
    }
    const long = await c.call(4, "subscribe", { query: `a.b='${"x".repeat(520)}'` });
    expect(long.error.data).toBe("maximum query length exceeded");
    expect((await c.call(5, "subscribe", {})).error.code).toBe(-32603);
    // A notification (no id) gets no answer: the next answer is the next call's.
    const from = c.received.length;
    c.send({ jsonrpc: "2.0", method: "health" });
    expect((await c.call(6, "health")).result).toEqual({});
    expect(c.received.length).toBe(from + 1);
    c.close();
  });
});

describe("WebSocket bounds (config.toml [rpc], CometBFT's keys)", () => {
  it("refuses subscriptions past max_subscriptions_per_client and max_subscription_clients", async () => {
    const n = await rpcNode((c) => {
      c.rpc.maxSubscriptionClients = 2;
      c.rpc.maxSubscriptionsPerClient = 2;
    });
    try {
      const [a, b, c] = await Promise.all([1, 2, 3].map(() => JsonRpcSocket.open(n.server.address)));
      expect((await a.call(1, "subscribe", { query: "tm.event='NewBlock'" })).result).toEqual({});
      expect((await a.call(2, "subscribe", { query: "tm.event='NewBlockHeader'" })).result).toEqual({});
      expect((await a.call(3, "subscribe", { query: "tm.event='Tx'" })).error).toEqual({
        code: -32603,
        message: "Internal error",
        data: "max_subscriptions_per_client 2 reached",
      });
      expect((await b.call(1, "subscribe", { query: "tm.event='NewBlock'" })).result).toEqual({});
      expect((await c.call(1, "subscribe", { query: "tm.event='NewBlock'" })).error.data).toBe(
        "max_subscription_clients 2 reached",
      );
      // A client that leaves frees its place.
      a.close();
      await a.closed;
      for (let i = 2; ; i++) {
        const r = await c.call(i, "subscribe", { query: "tm.event='NewBlock'" });
        if (r.result) break;
        expect(r.error.data).toBe("max_subscription_clients 2 reached");
      }
      await c.next((m) => m.result?.query);
      b.close();
      c.close();
    } finally {
      await n.close();
    }
  });

  it("closes a connection whose message exceeds max_body_bytes (1009) and serves the others", async () => {
    const n = await rpcNode((c) => {
      c.rpc.maxBodyBytes = 10_000;
    });
    try {
      const big = await JsonRpcSocket.open(n.server.address);
      const other = await JsonRpcSocket.open(n.server.address);
      big.send({ jsonrpc: "2.0", id: 1, method: "health", params: { pad: "x".repeat(10_001) } });
      expect(await big.closed).toBe(1009);
      expect(big.received).toEqual([]);
      expect((await other.call(1, "health")).result).toEqual({});
      other.close();
    } finally {
      await n.close();
    }
  });

  /**
   * A reader that subscribes to five queries (about 10 kB of events a block) and then never reads. Once the OS's
   * socket buffers (a few MB), the connection's write buffer (100) and a subscription's buffer (100) are full,
   * CometBFT cancels the subscriptions; with experimental_close_on_slow_client it drops the connection. Seen from
   * outside through max_subscription_clients = 2, held by the reader and one other client: a third may subscribe
   * once the reader holds none.
   */
  async function starveReader(closeOnSlowClient: boolean) {
    const n = await rpcNode((c) => {
      c.rpc.maxSubscriptionClients = 2;
      c.rpc.subscriptionBufferSize = 100;
      c.rpc.webSocketWriteBufferSize = 100;
      c.rpc.closeOnSlowClient = closeOnSlowClient;
      c.consensus.timeoutCommitMs = 1;
    });
    const reader = await stalledReader(n.server.address, [
      "tm.event='NewBlock'",
      "tm.event='NewBlockHeader'",
      "tm.event='NewBlockEvents'",
      "tm.event EXISTS",
      "tm.event CONTAINS 'New'",
    ]);
    const other = await JsonRpcSocket.open(n.server.address);
    expect((await other.call(1, "subscribe", { query: "tm.event='NewBlockHeader'" })).result).toEqual({});
    const probe = await JsonRpcSocket.open(n.server.address);
    const start = n.node.blocks.height;
    for (let id = 1; ; id++) {
      await n.blocksPass(10);
      const r = await probe.call(id, "subscribe", { query: "tm.event='NewBlock'" });
      if (r.result) break;
      expect(r.error.data).toBe("max_subscription_clients 2 reached");
      expect(n.node.blocks.height - start).toBeLessThan(5000);
    }
    // Blocks went on being committed while the reader starved, and go on after.
    const blocks = n.node.blocks.height - start;
    await n.blocksPass(5);
    const got = await reader.drain();
    // The client that reads heard of every block.
    const heard = other.received
      .filter((m) => m.result?.query)
      .map((m) => Number(m.result.data.value.header.height));
    expect(heard.length).toBeGreaterThanOrEqual(blocks);
    expect(heard).toEqual(heard.map((_, i) => heard[0] + i));
    other.close();
    probe.close();
    reader.socket.destroy();
    await n.close();
    return { blocks, ...got };
  }

  it("cancels the subscriptions of a client that never reads, and blocks keep committing", async () => {
    const { blocks, events, closed } = await starveReader(false);
    // It got what the buffers held, never every event (9 a block: 3 kinds, two queries matching all three).
    expect(events).toBeGreaterThan(0);
    expect(events).toBeLessThan(blocks * 9);
    // The connection stays open (as CometBFT, until its pings go unanswered) and answers calls again.
    expect(closed).toBe(false);
  }, 120_000);

  it("with experimental_close_on_slow_client drops a client that never reads, and blocks keep committing", async () => {
    const { blocks, events, closed } = await starveReader(true);
    expect(events).toBeLessThan(blocks * 9);
    expect(closed).toBe(true);
  }, 120_000);
});

/** A WebSocket client on a bare TCP socket that subscribes and then never reads: the OS's buffers fill, then the server's. */
async function stalledReader(rpc: string, queries: string[]) {
  const { hostname, port } = new URL(rpc);
  const socket: Socket = createConnection(Number(port), hostname);
  await new Promise<void>((resolve) => socket.once("connect", () => resolve()));
  socket.write(
    `GET /websocket HTTP/1.1\r\nHost: ${hostname}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve) =>
    socket.on("data", function first(d: Buffer) {
      chunks.push(d);
      if (Buffer.concat(chunks).includes("\r\n\r\n")) {
        socket.off("data", first);
        resolve();
      }
    }),
  );
  let closed = false;
  socket.on("end", () => {
    closed = true;
  });
  socket.on("close", () => {
    closed = true;
  });
  socket.on("error", () => {});
  for (const [i, query] of queries.entries())
    socket.write(
      maskedText(JSON.stringify({ jsonrpc: "2.0", id: i + 1, method: "subscribe", params: { query } })),
    );
  // Wait for the answers to the subscriptions, then stop reading.
  let seen = Buffer.alloc(0);
  await new Promise<void>((resolve) => {
    const onData = (d: Buffer) => {
      seen = Buffer.concat([seen, d]);
      if (seen.toString("latin1").split('"result":{}').length - 1 >= queries.length) {
        socket.off("data", onData);
        resolve();
      }
    };
    socket.on("data", onData);
  });
  socket.pause();
  return {
    socket,
    /** Reads what arrived and counts its events; then reads on until the server closes or answers a call. */
    async drain(): Promise<{ events: number; closed: boolean }> {
      let text = "";
      socket.on("data", (d: Buffer) => {
        text += d.toString("latin1");
      });
      socket.resume();
      if (!closed) socket.write(maskedText(JSON.stringify({ jsonrpc: "2.0", id: "done", method: "health" })));
      await new Promise<void>((resolve) => {
        const check = () => {
          if (closed || text.includes('"id":"done"')) resolve();
          else setTimeout(check, 20);
        };
        check();
      });
      return { events: text.split('"query":').length - 1, closed };
    },
  };
}

/** One masked client text frame, as RFC 6455 requires a client to send. */
function maskedText(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = Buffer.from([1, 2, 3, 4]);
  const len = payload.length;
  const head =
    len < 126 ? Buffer.from([0x81, 0x80 | len]) : Buffer.from([0x81, 0x80 | 126, len >> 8, len & 0xff]);
  const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([head, mask, body]);
}
