import { create, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { SimulateRequestSchema } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_TX_MSGS, SIMULATION_CONCURRENCY } from "../../../node/src/app/simulation-limits.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { startGrpcServer } from "../../../node/src/server/grpc/grpc-server.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { anyOf } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");
const bob = testAccount("bob");
const SIMULATE = "/cosmos.tx.v1beta1.Service/Simulate";
const raw = (b: Buffer) => b;

/**
 * Issue 20's attack on simulation (a dozen parallel simulations of the biggest txs, which used to hold the block
 * lock for seconds), at a size this machine handles, through the real gRPC, REST and RPC listeners.
 */
describe("simulations under load", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let rpc: NodeServer;
  let rest: NodeServer;
  let grpcServer: NodeServer;
  let client: grpc.Client;
  /** The biggest tx the node simulates: MAX_TX_MSGS sends, about 3M gas. */
  let bigTx: Uint8Array;

  const simulateOverRpc = async (tx: Uint8Array): Promise<Json> => {
    const data = Buffer.from(toBinary(SimulateRequestSchema, create(SimulateRequestSchema, { txBytes: tx })));
    const res = await fetch(rpc.address, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "abci_query",
        params: { path: SIMULATE, data: data.toString("hex") },
      }),
    });
    return ((await res.json()) as Json).result.response;
  };
  const simulateOverGrpc = (tx: Uint8Array) =>
    new Promise<grpc.ServiceError | null>((resolve) => {
      const req = Buffer.from(
        toBinary(SimulateRequestSchema, create(SimulateRequestSchema, { txBytes: tx })),
      );
      client.makeUnaryRequest(SIMULATE, raw, raw, req, new grpc.Metadata(), (err) => resolve(err));
    });
  const simulateOverRest = async (tx: Uint8Array) => {
    const res = await fetch(`${rest.address}/cosmos/tx/v1beta1/simulate`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ tx_bytes: Buffer.from(tx).toString("base64") }),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    rpc = (await startRpcServer(node, { logger: silentLogger }))!;
    rest = (await startRestServer(node, { logger: silentLogger }))!;
    grpcServer = (await startGrpcServer(node, { logger: silentLogger }))!;
    client = new grpc.Client(grpcServer.address, grpc.credentials.createInsecure());
    await node.producer.produce();
    const msgs = Array.from({ length: MAX_TX_MSGS }, () =>
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount: "1" }],
      }),
    );
    bigTx = await signTxDirect(
      { messages: msgs, fee: { amount: [{ denom: "stake", amount: "125000" }], gasLimit: 5_000_000n } },
      [alice.signer(0n, 0n)],
      home.chainId,
    );
  });
  afterAll(async () => {
    client?.close();
    await grpcServer?.close();
    await rest?.close();
    await rpc?.close();
    await node?.close();
    home?.cleanup();
  });

  it("keeps committing blocks while a dozen big simulations run in parallel, in the middle of them", async () => {
    // A simulation reads the height it started on; a read of it once a newer block is committed means a block
    // was made while that simulation was running. Under a shared block lock that can never happen.
    const get = node.store.get.bind(node.store);
    let readsAcrossACommit = 0;
    node.store.get = (store, key, height) => {
      if (height !== undefined && height < node.store.latestHeight) readsAcrossACommit++;
      return get(store, key, height);
    };
    const running = node.producer.start();
    try {
      let bursts = 0;
      let advancedDuringABurst = false;
      while (bursts < 10 && (readsAcrossACommit === 0 || !advancedDuringABurst)) {
        bursts++;
        const before = node.store.latestHeight;
        const answers = await Promise.all(Array.from({ length: 12 }, () => simulateOverRpc(bigTx)));
        for (const a of answers) expect(a.code, a.log).toBe(0);
        if (node.store.latestHeight > before) advancedDuringABurst = true;
      }
      expect(advancedDuringABurst).toBe(true);
      expect(readsAcrossACommit).toBeGreaterThan(0);
    } finally {
      node.store.get = get;
      await node.producer.stop();
      await running;
    }
  });

  it("answers 'too many simulations in flight' on gRPC, REST and RPC once the line is full, then serves the line", async () => {
    const { running, waiting } = SIMULATION_CONCURRENCY;
    // Simulations read a pinned height: hold those reads so the admitted ones stay in flight.
    const get = node.store.get.bind(node.store);
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    node.store.get = async (store, key, height) => {
      if (height !== undefined) await held;
      return get(store, key, height);
    };
    try {
      const admitted = Array.from({ length: running + waiting }, () => simulateOverRpc(bigTx));
      for (let i = 0; i < 500 && node.app.simulationLoad.waiting < waiting; i++)
        await new Promise((r) => setTimeout(r, 10));
      expect(node.app.simulationLoad).toEqual({ running, waiting });

      const message = `too many simulations in flight (${running} running, ${waiting} waiting); try again shortly`;
      const overGrpc = await simulateOverGrpc(bigTx);
      expect(overGrpc?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
      expect(overGrpc?.details).toBe(message);
      const overRest = await simulateOverRest(bigTx);
      expect(overRest.status).toBe(429);
      expect(overRest.body).toMatchObject({ code: grpc.status.RESOURCE_EXHAUSTED, message });
      const overRpc = await simulateOverRpc(bigTx);
      expect(overRpc.code).not.toBe(0);
      expect(overRpc.log).toBe(`rpc error: code = ResourceExhausted desc = ${message}`);

      node.store.get = get;
      release();
      const answers = await Promise.all(admitted);
      expect(answers.map((a) => a.code)).toEqual(Array(running + waiting).fill(0));
      expect(node.app.simulationLoad).toEqual({ running: 0, waiting: 0 });
    } finally {
      node.store.get = get;
      release();
    }
  });

  it("refuses over gRPC a tx larger than max_tx_bytes, which gRPC's own 10 MB limit would let in", async () => {
    const size = node.nodeConfig.mempool.maxTxBytes + 1;
    expect(size).toBeLessThan(node.appConfig.grpc.maxRecvMsgSize);
    const err = await simulateOverGrpc(new Uint8Array(size));
    // A simulation that fails answers as the SDK's tx service: gRPC Unknown, the gas figures after the text.
    expect(err?.code).toBe(grpc.status.UNKNOWN);
    expect(err?.details).toBe(
      `tx too large. Max size is ${node.nodeConfig.mempool.maxTxBytes}, but got ${size}: tx too large With gas wanted: '0' and gas used: '0' `,
    );
  });
});
