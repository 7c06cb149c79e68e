import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { MsgSubmitProposalSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

interface Answer {
  result?: Json;
  error?: { code: number; message: string; data: string };
}

const alice = testAccount("alice");
const bob = testAccount("bob");

// Field names in CometBFT 0.38.26's order (rpc/core/types/responses.go, types/*.go, consensus/types/round_state.go).
const HEADER_KEYS = [
  "version",
  "chain_id",
  "height",
  "time",
  "last_block_id",
  "last_commit_hash",
  "data_hash",
  "validators_hash",
  "next_validators_hash",
  "consensus_hash",
  "app_hash",
  "last_results_hash",
  "evidence_hash",
  "proposer_address",
];
const CHECK_TX_KEYS = ["code", "data", "log", "info", "gas_wanted", "gas_used", "events", "codespace"];
const ROUND_STATE_SIMPLE_KEYS = [
  "height/round/step",
  "start_time",
  "proposal_block_hash",
  "locked_block_hash",
  "valid_block_hash",
  "height_vote_set",
  "proposer",
];
const ROUND_STATE_KEYS = [
  "height",
  "round",
  "step",
  "start_time",
  "commit_time",
  "validators",
  "proposal",
  "proposal_block",
  "proposal_block_parts",
  "locked_round",
  "locked_block",
  "locked_block_parts",
  "valid_round",
  "valid_block",
  "valid_block_parts",
  "votes",
  "commit_round",
  "last_commit",
  "last_validators",
  "triggered_timeout_precommit",
];
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

describe("CometBFT 0.38 RPC methods beyond blocks and txs", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let server: NodeServer;
  let signer: TxSigner;
  let droppedAt = 0;

  const post = async (method: string, params: unknown = {}): Promise<Answer> => {
    const res = await fetch(server.address, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return (await res.json()) as Answer;
  };

  /** The URI form: numbers bare, strings quoted, bytes as 0x-hex, as CometBFT's URI handler reads them. */
  const get = async (
    method: string,
    params: Record<string, string> = {},
  ): Promise<Answer & { status: number }> => {
    const query = Object.entries(params)
      .map(([k, v]) => `${k}=${encodeURIComponent(/^\d+$/.test(v) || v.startsWith("0x") ? v : `"${v}"`)}`)
      .join("&");
    const res = await fetch(`${server.address}/${method}${query ? `?${query}` : ""}`);
    return { status: res.status, ...((await res.json()) as Answer) };
  };

  /** The same call over POST and GET; both must answer alike. */
  const both = async (method: string, params: Record<string, string> = {}) => {
    const [viaPost, viaGet] = await Promise.all([post(method, params), get(method, params)]);
    expect(viaPost.error).toBeUndefined();
    expect(viaGet.result).toEqual(viaPost.result);
    return viaPost.result;
  };

  const send = (amount: string) =>
    signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount }],
      }),
    ]);

  const propose = () =>
    signer.sign([
      anyOf(MsgSubmitProposalSchema, {
        messages: [
          anyOf(MsgSendSchema, {
            fromAddress: GOV_ADDRESS,
            toAddress: bob.address,
            amount: [{ denom: "stake", amount: "1" }],
          }),
        ],
        initialDeposit: [{ denom: "stake", amount: "10" }],
        proposer: alice.address,
        title: "t",
        summary: "s",
      }),
    ]);

  beforeAll(async () => {
    home = makeTestHome({
      govPeriodMs: 1000,
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneNode: (c) => {
        c.rpc.laddr = "tcp://127.0.0.1:0";
        c.consensus.timeoutCommitMs = 50;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    server = (await startRpcServer(node, { logger: silentLogger }))!;
    signer = new TxSigner(alice, 0n, home.chainId);
    // Blocks 1..5, with a proposal in block 2 and a send in block 3.
    for (let h = 1; h <= 5; h++) {
      if (h === 2) expect((await node.mempool.add(await propose())).code).toBe(0);
      if (h === 3) expect((await node.mempool.add(await send("10"))).code).toBe(0);
      await node.producer.produce();
    }
    // Then blocks until one's EndBlock drops the proposal (its 1 s deposit period over): a block event.
    for (let i = 0; i < 100 && droppedAt === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      const b = await node.producer.produce();
      if (b.events.some((e) => e.type === "inactive_proposal")) droppedAt = b.height;
    }
    expect(droppedAt).toBeGreaterThan(5);
  });
  afterAll(async () => {
    await server?.close();
    await node?.close();
    home?.cleanup();
  });

  it("header and header_by_hash: a block's header, null for a hash the store lacks", async () => {
    const block = (await post("block", { height: "3" })).result;
    const { header } = await both("header", { height: "3" });
    expect(Object.keys(header)).toEqual(HEADER_KEYS);
    expect(header).toEqual(block.block.header);
    expect((await both("header")).header.height).toBe(String(node.blocks.height));
    const byHash = await both("header_by_hash", { hash: `0x${block.block_id.hash}` });
    expect(byHash.header).toEqual(header);
    expect(await both("header_by_hash", { hash: `0x${"AB".repeat(32)}` })).toEqual({ header: null });
    const bad = await get("header_by_hash", { hash: "0x1234" });
    expect(bad.error).toMatchObject({ code: -32602, data: "hash must be 32 bytes" });
    const tooHigh = await post("header", { height: "999" });
    expect(tooHigh.error?.data).toBe(
      `height 999 must be less than or equal to the current blockchain height ${node.blocks.height}`,
    );
  });

  it("consensus_params: genesis's params at the height being worked on, as CometBFT prints them", async () => {
    const next = node.blocks.height + 1;
    expect(await both("consensus_params")).toEqual({
      block_height: String(next),
      consensus_params: {
        block: { max_bytes: "22020096", max_gas: "-1" },
        evidence: { max_age_num_blocks: "100000", max_age_duration: "172800000000000", max_bytes: "1048576" },
        validator: { pub_key_types: ["ed25519"] },
        version: { app: "0" },
        abci: { vote_extensions_enable_height: "0" },
      },
    });
    expect((await both("consensus_params", { height: "2" })).block_height).toBe("2");
    expect((await post("consensus_params", { height: String(next + 1) })).error?.code).toBe(-32603);
  });

  it("check_tx: CheckTx's answer with every field, and nothing kept: the same tx then enters the mempool", async () => {
    const tx = Buffer.from(await send("7")).toString("base64");
    const before = node.mempool.size;
    const checked = (await post("check_tx", { tx })).result;
    expect(Object.keys(checked)).toEqual(CHECK_TX_KEYS);
    expect(checked).toMatchObject({
      code: 0,
      data: null,
      log: "",
      info: "",
      gas_wanted: "400000",
      codespace: "",
    });
    expect(checked.gas_used).toMatch(/^[1-9]\d*$/);
    expect(checked.events.map((e: Json) => e.type)).toContain("tx");
    // Checked twice: a check that took the sequence would refuse the second time.
    expect((await get("check_tx", { tx: `0x${Buffer.from(tx, "base64").toString("hex")}` })).result).toEqual(
      checked,
    );
    expect(node.mempool.size).toBe(before);
    expect((await post("broadcast_tx_sync", { tx })).result.code).toBe(0);
    expect(node.mempool.size).toBe(before + 1);
    await node.producer.produce();

    const garbage = (await post("check_tx", { tx: Buffer.from("not a tx").toString("base64") })).result;
    expect(garbage.code).not.toBe(0);
    expect(garbage.codespace).toBe("sdk");
    expect((await post("check_tx", { tx: "***" })).error).toMatchObject({
      code: -32602,
      data: "tx must be base64",
    });
    expect((await post("check_tx", {})).error).toMatchObject({ code: -32602, data: "missing parameter tx" });
  });

  it("block_search: CometBFT's query language, newest first by default, paged as CometBFT pages", async () => {
    const heights = (r: Json) => r.blocks.map((b: Json) => Number(b.block.header.height));
    const range = await both("block_search", { query: "block.height >= 2 AND block.height <= 4" });
    expect(range.total_count).toBe("3");
    expect(heights(range)).toEqual([4, 3, 2]);
    expect(Object.keys(range.blocks[0])).toEqual(["block_id", "block"]);
    expect(range.blocks[0]).toEqual((await post("block", { height: "4" })).result);
    const asc = await both("block_search", {
      query: "block.height > 1 AND block.height < 5",
      order_by: "asc",
    });
    expect(heights(asc)).toEqual([2, 3, 4]);
    const page2 = await both("block_search", {
      query: "block.height <= 4",
      order_by: "asc",
      per_page: "3",
      page: "2",
    });
    expect(page2).toMatchObject({ total_count: "4" });
    expect(heights(page2)).toEqual([4]);
    // per_page below 1 is CometBFT's default 30; above 100 is 100.
    expect(heights(await both("block_search", { query: "block.height < 3", per_page: "0" }))).toEqual([2, 1]);
    const none = await both("block_search", { query: "block.height = 2 AND block.height = 3" });
    expect(none).toEqual({ blocks: [], total_count: "0" });
    // A condition on an event no block emitted matches nothing.
    expect((await both("block_search", { query: "nosuch.key = 'x'" })).total_count).toBe("0");

    const pageOut = await post("block_search", { query: "block.height <= 4", per_page: "3", page: "3" });
    expect(pageOut.error).toMatchObject({
      code: -32603,
      data: "page should be within [1, 2] range, given 3",
    });
    const badQuery = await get("block_search", { query: "block.height >>= 2" });
    expect(badQuery.status).toBe(500);
    expect(badQuery.error?.data).toMatch(/^failed to parse query: /);
    const badOrder = await post("block_search", { query: "block.height > 1", order_by: "up" });
    expect(badOrder.error?.data).toBe("expected order_by to be either `asc` or `desc` or empty");
    expect((await post("block_search", { query: "block.height > 1", page: "x" })).error?.code).toBe(-32602);
  });

  it("block_search matches FinalizeBlock events by attribute, with the height", async () => {
    // The proposal of block 2 was dropped, its deposit period over, in one block's EndBlock.
    const dropped = `inactive_proposal.proposal_id = '1'`;
    const found = await both("block_search", { query: dropped });
    expect(found.total_count).toBe("1");
    const height = Number(found.blocks[0].block.header.height);
    expect(height).toBe(droppedAt);
    const both2 = await both("block_search", {
      query: `${dropped} AND inactive_proposal.proposal_result = 'proposal_dropped' AND block.height >= ${height}`,
    });
    expect(both2.total_count).toBe("1");
    expect(
      (await both("block_search", { query: `${dropped} AND block.height < ${height}` })).total_count,
    ).toBe("0");
    expect((await both("block_search", { query: "inactive_proposal.proposal_id = '2'" })).total_count).toBe(
      "0",
    );
    expect((await both("block_search", { query: "inactive_proposal EXISTS" })).total_count).toBe("1");
  });

  it("net_info: no peer-to-peer layer, so not listening and no peers", async () => {
    expect(await both("net_info")).toEqual({ listening: false, listeners: [], n_peers: "0", peers: [] });
  });

  it("consensus_state: the wait for the next height, with its one validator as proposer", async () => {
    const height = node.blocks.height;
    const { round_state } = await both("consensus_state");
    expect(Object.keys(round_state)).toEqual(ROUND_STATE_SIMPLE_KEYS);
    const power = node.votingPower();
    expect(round_state).toMatchObject({
      "height/round/step": `${height + 1}/0/1`,
      proposal_block_hash: "",
      locked_block_hash: "",
      valid_block_hash: "",
      height_vote_set: [
        {
          round: 0,
          prevotes: ["nil-Vote"],
          prevotes_bit_array: `BA{1:_} 0/${power} = 0.00`,
          precommits: ["nil-Vote"],
          precommits_bit_array: `BA{1:_} 0/${power} = 0.00`,
        },
      ],
      proposer: { address: Buffer.from(node.signer.address).toString("hex").toUpperCase(), index: 0 },
    });
    expect(round_state.start_time).toMatch(RFC3339);
  });

  it("dump_consensus_state: CometBFT's RoundState, its last commit holding the validator's own precommit", async () => {
    const height = node.blocks.height;
    const { round_state, peers } = await both("dump_consensus_state");
    expect(peers).toEqual([]);
    expect(Object.keys(round_state)).toEqual(ROUND_STATE_KEYS);
    const { result: status } = await post("status");
    const { result: vals } = await post("validators");
    expect(round_state).toMatchObject({
      height: String(height + 1),
      round: 0,
      step: 1,
      locked_round: -1,
      valid_round: -1,
      commit_round: -1,
      proposal: null,
      proposal_block: null,
      triggered_timeout_precommit: false,
      validators: { validators: vals.validators, proposer: vals.validators[0] },
      last_validators: { validators: vals.validators, proposer: vals.validators[0] },
    });
    // commit_time is the latest block's commit; start_time is timeout_commit later.
    const header = (await post("header")).result.header;
    expect(round_state.commit_time).toBe(header.time);
    expect(Date.parse(round_state.start_time) - Date.parse(round_state.commit_time)).toBe(50);
    // CometBFT's vote string: index:address H/round/type(name) block-hash signature extension @ time, each 6 bytes.
    const commit = (await post("commit", { height: String(height) })).result.signed_header.commit;
    const sig = commit.signatures[0];
    const six = (hex: string) => hex.slice(0, 12).padEnd(12, "0");
    const sigHex = Buffer.from(sig.signature, "base64").toString("hex").toUpperCase();
    expect(round_state.last_commit).toEqual({
      votes: [
        `Vote{0:${six(sig.validator_address)} ${height}/00/SIGNED_MSG_TYPE_PRECOMMIT(Precommit) ${six(commit.block_id.hash)} ${six(sigHex)} 000000000000 @ ${sig.timestamp}}`,
      ],
      votes_bit_array: `BA{1:x} ${status.validator_info.voting_power}/${status.validator_info.voting_power} = 1.00`,
      peer_maj_23s: {},
    });
  });

  it("validators pages as CometBFT: one page of one, any later page refused", async () => {
    expect((await both("validators", { page: "1", per_page: "1" })).count).toBe("1");
    expect((await both("validators", { per_page: "0" })).validators).toHaveLength(1);
    const later = await post("validators", { page: "2" });
    expect(later.error).toMatchObject({ code: -32603, data: "page should be within [1, 1] range, given 2" });
    expect((await post("validators", { page: "0" })).error?.data).toBe(
      "page should be within [1, 1] range, given 0",
    );
  });

  it("broadcast_evidence and the unsafe methods: refused, saying why", async () => {
    expect((await post("broadcast_evidence", {})).error).toMatchObject({
      code: -32603,
      data: "no evidence was provided",
    });
    const withEvidence = await post("broadcast_evidence", {
      evidence: { type: "tendermint/DuplicateVoteEvidence" },
    });
    expect(withEvidence.error?.data).toMatch(/^failed to add evidence: .*no evidence pool/);
    for (const name of ["dial_seeds", "dial_peers", "unsafe_flush_mempool"]) {
      const refused = await get(name);
      expect(refused.status).toBe(404);
      expect(refused.error).toMatchObject({ code: -32601, message: "Method not found" });
      expect(refused.error?.data).toMatch(/unsafe methods/);
    }
    const root = (await (await fetch(`${server.address}/`)).json()) as Json;
    const listed = root.result.methods as string[];
    expect(listed).not.toContain("dial_seeds");
    // Every route of CometBFT 0.38's rpc/core/routes.go but the WebSocket-only ones and the unsafe ones.
    expect(listed).toEqual(
      [
        "health",
        "status",
        "net_info",
        "blockchain",
        "genesis",
        "genesis_chunked",
        "block",
        "block_by_hash",
        "block_results",
        "commit",
        "header",
        "header_by_hash",
        "check_tx",
        "tx",
        "tx_search",
        "block_search",
        "validators",
        "dump_consensus_state",
        "consensus_state",
        "consensus_params",
        "unconfirmed_txs",
        "num_unconfirmed_txs",
        "broadcast_tx_commit",
        "broadcast_tx_sync",
        "broadcast_tx_async",
        "abci_query",
        "abci_info",
        "broadcast_evidence",
      ].sort(),
    );
  });

  it("the WebSocket answers the new methods from the same table", async () => {
    const ws = new WebSocket(`${server.address.replace(/^http/, "ws")}/websocket`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    const ask = (id: number, method: string, params: unknown) =>
      new Promise<Json>((resolve) => {
        const onMessage = (data: WebSocket.RawData) => {
          const msg = JSON.parse(String(data));
          if (msg.id !== id) return;
          ws.off("message", onMessage);
          resolve(msg);
        };
        ws.on("message", onMessage);
        ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
      });
    try {
      expect((await ask(1, "header", { height: "2" })).result).toEqual(
        (await post("header", { height: "2" })).result,
      );
      expect((await ask(2, "block_search", { query: "block.height = 2" })).result.total_count).toBe("1");
      expect((await ask(3, "net_info", {})).result.n_peers).toBe("0");
      expect((await ask(4, "header", { height: "x" })).error.code).toBe(-32602);
    } finally {
      ws.close();
    }
  });

  it("CosmJS's Comet38Client reads commit, blockSearch, validatorsAll and blockchain", async () => {
    const client = await Comet38Client.connect(server.address);
    try {
      const found = await client.blockSearchAll({ query: "block.height >= 2 AND block.height <= 3" });
      expect(found.totalCount).toBe(2);
      expect(found.blocks.map((b) => b.block.header.height).sort()).toEqual([2, 3]);
      const commit = await client.commit(2);
      expect(commit.canonical).toBe(true);
      expect(commit.header.height).toBe(2);
      expect(commit.commit.signatures).toHaveLength(1);
      const validators = await client.validatorsAll();
      expect(validators.total).toBe(1);
      expect(validators.validators).toHaveLength(1);
      const chain = await client.blockchain(1, 3);
      expect(chain.blockMetas.map((m) => m.header.height)).toEqual([3, 2, 1]);
    } finally {
      client.disconnect();
    }
  });

  it("bad params of every kind get a JSON-RPC error and the node goes on", async () => {
    const bad: [string, unknown][] = [
      ["header", { height: "abc" }],
      ["header", { height: -1 }],
      ["header_by_hash", {}],
      ["header_by_hash", { hash: 42 }],
      ["consensus_params", { height: "1.5" }],
      ["block_search", {}],
      ["block_search", { query: "" }],
      ["block_search", { query: "a = 'unterminated" }],
      ["check_tx", { tx: 12 }],
      ["validators", { page: "-3" }],
    ];
    for (const [method, params] of bad) {
      const { error, result } = await post(method, params);
      expect(result, `${method} ${JSON.stringify(params)}`).toBeUndefined();
      expect([-32602, -32603]).toContain(error?.code);
      expect(error?.data).toBeTruthy();
    }
    const before = node.blocks.height;
    await node.producer.produce();
    expect((await post("status")).result.sync_info.latest_block_height).toBe(String(before + 1));
  });
});
