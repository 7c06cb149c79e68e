import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { QueryAccountRequestSchema } from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import {
  GetBlockByHeightRequestSchema,
  GetNodeInfoResponseSchema,
} from "@chaind/proto/sdk/base/tendermint/v1beta1/query_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import {
  commitFromJson,
  headerFromJson,
  validatorsFromJson,
} from "../../../node/src/consensus/light-block-json.js";
import { verifyHeader } from "../../../node/src/consensus/light-client.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const getJson = async (url: string): Promise<Json> => (await fetch(url)).json();

const alice = testAccount("alice");
const bob = testAccount("bob");

describe("CometBFT-compatible JSON-RPC", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let server: NodeServer;
  let sequence = 0n;

  const rpc = async (method: string, params: unknown = {}) => {
    const res = await fetch(server.address, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
    });
    return (await res.json()) as {
      id: number;
      result?: Json;
      error?: { code: number; message: string; data: string };
    };
  };

  const signedSend = async (amount: string) => {
    const msg = create(MsgSendSchema, {
      fromAddress: alice.address,
      toAddress: bob.address,
      amount: [{ denom: "stake", amount }],
    });
    return signTxDirect(
      {
        messages: [
          create(AnySchema, { typeUrl: "/sdk.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, msg) }),
        ],
        fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n },
      },
      [alice.signer(0n, sequence++)],
      home.chainId,
    );
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneNode: (c) => {
        c.rpc.laddr = "tcp://127.0.0.1:0";
        c.rpc.maxBodyBytes = 4096;
        c.consensus.timeoutCommitMs = 50;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    server = (await startRpcServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
  });
  afterAll(async () => {
    await server.close();
    await node.close();
    home.cleanup();
  });

  it("listens on loopback and reports CometBFT 0.38 with the chain id as network", async () => {
    expect(server.address).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const { result } = await rpc("status");
    expect(result.node_info.version).toMatch(/^0\.38\./);
    expect(result.node_info.network).toBe(home.chainId);
    expect(result.sync_info.latest_block_height).toBe("1");
    expect(result.sync_info.latest_block_time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(result.validator_info.pub_key.type).toBe("tendermint/PubKeyEd25519");
  });

  it("answers the URI form and positional params, and lists methods at the root", async () => {
    const health = await getJson(`${server.address}/health`);
    expect(health).toEqual({ jsonrpc: "2.0", id: -1, result: {} });
    const block = await getJson(`${server.address}/block?height=1`);
    expect(block.result.block.header.height).toBe("1");
    const positional = await rpc("block", ["1"]);
    expect(positional.result.block_id.hash).toBe(block.result.block_id.hash);
    const root = await getJson(`${server.address}/`);
    // Every area's methods, assembled by the registry: one missing from it would be missing here.
    expect(root.result.methods).toEqual([
      "abci_info",
      "abci_query",
      "block",
      "block_by_hash",
      "block_results",
      "block_search",
      "blockchain",
      "broadcast_evidence",
      "broadcast_tx_async",
      "broadcast_tx_commit",
      "broadcast_tx_sync",
      "check_tx",
      "commit",
      "consensus_params",
      "consensus_state",
      "dump_consensus_state",
      "genesis",
      "genesis_chunked",
      "header",
      "header_by_hash",
      "health",
      "net_info",
      "num_unconfirmed_txs",
      "status",
      "tx",
      "tx_search",
      "unconfirmed_txs",
      "validators",
    ]);
  });

  it("reports one CometBFT version and protocol set in status, the tendermint service and block headers", async () => {
    const { node_info } = (await rpc("status")).result;
    expect(node_info.version).toBe("0.38.17");
    expect(node_info.protocol_version).toMatchObject({ p2p: "8", block: "11" });
    expect(node_info.channels).toBe("40202122233038606100");
    const query = await rpc("abci_query", { path: "/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo" });
    const info = fromBinary(
      GetNodeInfoResponseSchema,
      Buffer.from(query.result.response.value, "base64"),
    ).defaultNodeInfo;
    expect(info?.version).toBe(node_info.version);
    expect(info?.protocolVersion).toMatchObject({ p2p: 8n, block: 11n });
    expect(String(info?.protocolVersion?.app)).toBe(node_info.protocol_version.app);
    const { block } = (await rpc("block", { height: "1" })).result;
    expect(block.header.version.block).toBe(node_info.protocol_version.block);
  });

  it("gives JSON-RPC errors for unknown methods, bad params, bad JSON and oversized bodies", async () => {
    expect((await rpc("no_such_method")).error).toMatchObject({ code: -32601 });
    expect((await rpc("block", { height: "abc" })).error).toMatchObject({
      code: -32602,
      data: 'height must be an integer, got "abc"',
    });
    expect((await rpc("block", { height: "99" })).error?.data).toContain("must be less than or equal to");
    expect((await rpc("tx_search", { query: "tx.height=" })).error?.data).toContain("invalid tx query");
    const bad = await fetch(server.address, { method: "POST", body: "{not json" });
    expect(((await bad.json()) as Json).error.code).toBe(-32700);
    const huge = await fetch(server.address, { method: "POST", body: "x".repeat(5000) });
    expect(huge.status).toBe(413);
    const notFound = await fetch(`${server.address}/nope`);
    expect(notFound.status).toBe(404);
    // Still serving afterwards.
    expect((await rpc("health")).result).toEqual({});
  });

  it("a block past the chain, up to int64's maximum, is refused with a coded error, not a store fault", async () => {
    for (const height of [10_000n, 2n ** 53n, 2n ** 63n - 1n]) {
      const data = Buffer.from(
        toBinary(GetBlockByHeightRequestSchema, create(GetBlockByHeightRequestSchema, { height })),
      ).toString("hex");
      const { result } = await rpc("abci_query", {
        path: "/cosmos.base.tendermint.v1beta1.Service/GetBlockByHeight",
        data,
      });
      expect(result.response.code, String(height)).not.toBe(0);
      expect(result.response.log, String(height)).toMatch(
        /requested block height \d+ is bigger then the chain length/,
      );
    }
  });

  it("abci_query answers at heights, and a missing account with code NotFound as CosmJS expects", async () => {
    const data = Buffer.from(
      toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address: bob.address })),
    ).toString("hex");
    const { result } = await rpc("abci_query", { path: "/cosmos.auth.v1beta1.Query/Account", data });
    expect(result.response.code).not.toBe(0);
    expect(result.response.log).toContain("rpc error: code = NotFound");
    const own = Buffer.from(
      toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address: alice.address })),
    ).toString("hex");
    const ok = await rpc("abci_query", {
      path: "/cosmos.auth.v1beta1.Query/Account",
      data: own,
      height: "1",
    });
    expect(ok.result.response.code).toBe(0);
    expect(ok.result.response.height).toBe("1");
    expect(Buffer.from(ok.result.response.value, "base64").toString("latin1")).toContain(
      "/cosmos.auth.v1beta1.BaseAccount",
    );
  });

  it("broadcast_tx_commit waits for the block; tx and tx_search find it by hash, height and sender", async () => {
    const runner = node.producer.start();
    try {
      const tx = await signedSend("77");
      const { result } = await rpc("broadcast_tx_commit", { tx: Buffer.from(tx).toString("base64") });
      expect(result.check_tx.code).toBe(0);
      expect(result.tx_result.code).toBe(0);
      const height = Number(result.height);
      expect(height).toBeGreaterThan(1);
      const byHash = await rpc("tx", { hash: Buffer.from(result.hash, "hex").toString("base64") });
      expect(byHash.result).toMatchObject({ hash: result.hash, height: result.height, index: 0 });
      for (const query of [
        `tx.hash='${result.hash}'`,
        `tx.height=${height}`,
        `message.sender='${alice.address}'`,
        `message.sender='${alice.address}' AND tx.height>=${height}`,
        `transfer.recipient='${bob.address}'`,
      ]) {
        const found = await rpc("tx_search", { query, page: "1", per_page: "10" });
        expect(found.result.total_count, query).toBe("1");
        expect(found.result.txs[0].hash).toBe(result.hash);
      }
      const none = await rpc("tx_search", { query: `message.sender='${bob.address}'` });
      expect(none.result).toEqual({ txs: [], total_count: "0" });

      const sync = await rpc("broadcast_tx_sync", {
        tx: Buffer.from(await signedSend("1")).toString("base64"),
      });
      expect(sync.result).toMatchObject({ code: 0, hash: expect.stringMatching(/^[0-9A-F]{64}$/) });
      const rejected = await rpc("broadcast_tx_sync", { tx: Buffer.from([1, 2, 3]).toString("base64") });
      expect(rejected.result.code).toBe(2);
      const results = await rpc("block_results", { height: String(height) });
      expect(results.result.txs_results[0].code).toBe(0);
      const chain = await rpc("blockchain", { minHeight: "1", maxHeight: String(height) });
      expect(chain.result.block_metas[0].header.height).toBe(String(height));
    } finally {
      await node.producer.stop();
      await runner;
    }
  });

  it("serves genesis, validators, abci_info and num_unconfirmed_txs", async () => {
    const { genesis } = (await rpc("genesis")).result;
    expect(genesis.chain_id).toBe(home.chainId);
    // The node keeps no copy of the app state (it can be tens of MB): it is read from genesis.json when asked.
    expect(genesis.app_state.bank.balances).toContainEqual({
      address: alice.address,
      coins: [{ denom: "stake", amount: "1000000" }],
    });
    expect("app_state" in node.genesis).toBe(false);
    const vals = await rpc("validators");
    expect(vals.result).toMatchObject({ count: "1", total: "1" });
    expect((await rpc("abci_info")).result.response.data).toBe("chaind");
    expect((await rpc("num_unconfirmed_txs")).result.total).toMatch(/^\d+$/);
  });

  it("commit: a block's commit from the next block (canonical), the latest one's from the validator's own precommit; a light client accepts both", async () => {
    await node.producer.produce();
    const latest = node.blocks.height;
    const validators = validatorsFromJson((await rpc("validators")).result);
    for (const [height, canonical] of [
      [latest - 1, true],
      [latest, false],
    ] as const) {
      const answer = (await rpc("commit", { height: String(height) })).result;
      expect(answer.canonical).toBe(canonical);
      expect(answer.signed_header.commit.height).toBe(String(height));
      const header = headerFromJson(answer.signed_header.header);
      const commit = commitFromJson(answer.signed_header.commit);
      verifyHeader({ chainId: home.chainId, header, commit, validators, trusted: validators });
      expect(Buffer.from(commit.blockId!.hash)).toEqual(
        Buffer.from((await node.blocks.meta(height))!.blockId!.hash),
      );
    }
    const past = await rpc("commit", { height: String(latest + 5) });
    expect(past.error?.data).toMatch(/must be less than or equal to the current blockchain height/);
  });

  // Last: it stops the block producer for good.
  it("broadcast_tx_commit answers at once when the node stops before the tx is in a block", async () => {
    const tx = await signedSend("5");
    const before = node.mempool.size;
    const pending = rpc("broadcast_tx_commit", { tx: Buffer.from(tx).toString("base64") });
    // In the mempool means the node already waits for its block.
    while (node.mempool.size === before) await new Promise((r) => setTimeout(r, 5));
    void node.producer.start();
    await node.producer.stop();
    const { error } = await pending;
    expect(error?.message).toBe("Internal error");
    expect(error?.data).toMatch(/^the node stopped before tx [0-9A-F]{64} was included in a block$/);
  });
});
