import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { StatusRequestSchema, StatusResponseSchema } from "@chaind/proto/sdk/base/node/v1beta1/query_pb";
import {
  QueryConstitutionRequestSchema,
  QueryConstitutionResponseSchema,
} from "@chaind/proto/sdk/gov/v1/query_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { COSMOS_SDK_VERSION } from "../../../node/src/chain/cosmos-sdk-version.js";
import { exportState } from "../../../node/src/chain/export-state.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");
const bob = testAccount("bob");
const CONSTITUTION = "Article 1: blocks keep coming.\nArticle 2: ünïcode stays as written.";

// Issue 34, point 3: Cosmos SDK 0.50 queries that were missing, empty or answered otherwise than the SDK answers
// them, as Keplr, InterchainJS and Telescope call them.
describe("SDK 0.50 queries over REST, gRPC and abci_query", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let closed = false;
  let api: NodeServer;
  let signer: TxSigner;

  const get = async (path: string) => {
    const res = await fetch(api.address + path);
    return { status: res.status, body: (await res.json()) as Json };
  };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(api.address + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };

  const send = (amount: string) =>
    signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount }],
      }),
    ]);

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      validator: { account: alice, stake: 1000n },
      tuneApp: (c) => {
        c.api.enable = true;
        c.minimumGasPrices = "0.0001stake,0.25uatom";
        c.haltHeight = 1000;
      },
      tuneGenesis: (g) => {
        (g.app_state.gov as Json).constitution = CONSTITUTION;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
    const acct = await get(`/sdk/auth/v1beta1/accounts/${alice.address}`);
    signer = new TxSigner(alice, BigInt(acct.body.account.account_number), home.chainId);
    // Block 2 holds one send.
    const added = await node.mempool.add(await send("7"));
    expect(added.code, added.log).toBe(0);
    await node.producer.produce();
  });
  afterAll(async () => {
    if (!closed) {
      await api?.close();
      await node?.close();
    }
    home?.cleanup();
  });

  it("filters validators by the SDK's status names, and refuses what the SDK refuses", async () => {
    for (const prefix of ["/sdk", "/cosmos"]) {
      const bonded = await get(`${prefix}/staking/v1beta1/validators?status=BOND_STATUS_BONDED`);
      expect(bonded.status, JSON.stringify(bonded.body)).toBe(200);
      expect(bonded.body.validators).toHaveLength(1);
      expect(bonded.body.validators[0].status).toBe("BOND_STATUS_BONDED");
    }
    for (const status of ["BOND_STATUS_UNBONDED", "BOND_STATUS_UNBONDING"]) {
      const none = await get(`/sdk/staking/v1beta1/validators?status=${status}`);
      expect(none.status).toBe(200);
      expect(none.body.validators).toEqual([]);
    }
    expect((await get("/sdk/staking/v1beta1/validators?status=")).body.validators).toHaveLength(1);
    // The SDK compares the text with the three statuses' names: short names, numbers and UNSPECIFIED are refused.
    for (const status of ["BONDED", "3", "BOND_STATUS_UNSPECIFIED", "bond_status_bonded"]) {
      const refused = await get(`/sdk/staking/v1beta1/validators?status=${status}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ code: 3, message: `invalid validator status ${status}` });
    }
  });

  it("reads enum query parameters by proto name or by the number of a value, as grpc-gateway does", async () => {
    for (const q of ["proposal_status=PROPOSAL_STATUS_PASSED", "proposal_status=3"])
      expect((await get(`/sdk/gov/v1/proposals?${q}`)).status).toBe(200);
    for (const q of ["order_by=ORDER_BY_DESC", "order_by=2"])
      expect((await get(`/sdk/tx/v1beta1/txs?query=tx.height>0&${q}`)).status).toBe(200);
    for (const q of ["proposal_status=99", "proposal_status=PASSED"]) {
      const refused = await get(`/sdk/gov/v1/proposals?${q}`);
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe(3);
    }
  });

  it("answers a failed simulation as the SDK's tx service: gRPC Unknown (HTTP 500) with the gas figures", async () => {
    const tx = await send("999999999");
    const sim = await post("/sdk/tx/v1beta1/simulate", { tx_bytes: Buffer.from(tx).toString("base64") });
    expect(sim.status, JSON.stringify(sim.body)).toBe(500);
    expect(sim.body.code).toBe(2);
    expect(sim.body.details).toEqual([]);
    expect(sim.body.message).toMatch(
      /^spendable balance \d+stake is smaller than 999999999stake: insufficient funds With gas wanted: '\d+' and gas used: '[1-9]\d*' $/,
    );
  });

  it("answers blocks with sdk_block: the header's proposer as a bech32 consensus address, the rest as block", async () => {
    const valcons = new AddressCodec("sdkvalcons");
    for (const path of [
      "/sdk/base/tendermint/v1beta1/blocks/2",
      "/cosmos/base/tendermint/v1beta1/blocks/latest",
    ]) {
      const r = await get(path);
      expect(r.status).toBe(200);
      const { block, sdk_block } = r.body;
      expect(sdk_block).not.toBeNull();
      const proposer = Buffer.from(block.header.proposer_address, "base64");
      expect(proposer).toHaveLength(20);
      expect(sdk_block.header.proposer_address).toBe(valcons.toString(proposer));
      const { proposer_address: _a, ...header } = block.header;
      const { proposer_address: _b, ...sdkHeader } = sdk_block.header;
      expect(sdkHeader).toEqual(header);
      expect(sdk_block.data).toEqual(block.data);
      expect(sdk_block.last_commit).toEqual(block.last_commit);
      expect(sdk_block.evidence).toEqual(block.evidence);
    }
    const validators = await get("/sdk/base/tendermint/v1beta1/validatorsets/latest");
    expect(validators.body.validators.map((v: Json) => v.address)).toContain(
      (await get("/sdk/base/tendermint/v1beta1/blocks/2")).body.sdk_block.header.proposer_address,
    );
  });

  it("reports the SDK line it follows as cosmos_sdk_version in node info", async () => {
    const r = await get("/cosmos/base/tendermint/v1beta1/node_info");
    expect(r.body.application_version.cosmos_sdk_version).toBe(COSMOS_SDK_VERSION);
    expect(r.body.application_version.cosmos_sdk_version).toMatch(/^v0\.50\.\d+$/);
  });

  it("answers GetBlockWithTxs with the block and its decoded txs, paged as the SDK pages them", async () => {
    const r = await get("/cosmos/tx/v1beta1/txs/block/2");
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.block.header.height).toBe("2");
    expect(r.body.block_id.hash).toBe(
      (await get("/sdk/base/tendermint/v1beta1/blocks/2")).body.block_id.hash,
    );
    expect(r.body.txs).toHaveLength(1);
    expect(r.body.txs[0].body.messages[0]).toMatchObject({
      "@type": "/cosmos.bank.v1beta1.MsgSend",
      to_address: bob.address,
      amount: [{ denom: "stake", amount: "7" }],
    });
    expect(r.body.pagination).toEqual({ next_key: null, total: "1" });
    const empty = await get("/sdk/tx/v1beta1/txs/block/1");
    expect(empty.body).toMatchObject({ txs: [], pagination: { total: "0" } });
    const past = await get("/sdk/tx/v1beta1/txs/block/2?pagination.offset=1");
    expect(past.status).toBe(400);
    expect(past.body.message).toBe(
      "out of range: cannot paginate 1 txs with offset 1 and limit 0: invalid request",
    );
    const ahead = await get(`/sdk/tx/v1beta1/txs/block/${node.store.latestHeight + 1}`);
    expect(ahead.status).toBe(400);
    expect(ahead.body.message).toContain("must not be less than 1 or greater than the current height");
  });

  it("answers gov v1 Constitution from genesis, over REST and abci_query", async () => {
    for (const prefix of ["/sdk", "/cosmos"])
      expect((await get(`${prefix}/gov/v1/constitution`)).body).toEqual({ constitution: CONSTITUTION });
    const viaAbci = await node.app.query(
      "/cosmos.gov.v1.Query/Constitution",
      toBinary(QueryConstitutionRequestSchema, create(QueryConstitutionRequestSchema)),
    );
    expect(fromBinary(QueryConstitutionResponseSchema, viaAbci.value).constitution).toBe(CONSTITUTION);
  });

  it("answers the node service's Config and Status as the SDK's node service does", async () => {
    const config = await get("/cosmos/base/node/v1beta1/config");
    expect(config.status).toBe(200);
    // The SDK prints its DecCoins: 18 decimals, by denom.
    expect(config.body).toEqual({
      minimum_gas_price: "0.000100000000000000stake,0.250000000000000000uatom",
      pruning_keep_recent: "0",
      pruning_interval: "0",
      halt_height: "1000",
    });
    const status = await get("/sdk/base/node/v1beta1/status");
    expect(status.status).toBe(200);
    const height = node.store.latestHeight;
    const block = (await get(`/sdk/base/tendermint/v1beta1/blocks/${height}`)).body.block;
    expect(status.body).toEqual({
      earliest_store_height: "1",
      height: String(height),
      timestamp: block.header.time,
      app_hash: block.header.app_hash,
      validator_hash: block.header.next_validators_hash,
    });
    const viaAbci = await node.app.query(
      "/cosmos.base.node.v1beta1.Service/Status",
      toBinary(StatusRequestSchema, create(StatusRequestSchema)),
      1,
    );
    expect(fromBinary(StatusResponseSchema, viaAbci.value).height).toBe(1n);
  });

  it("exports the constitution in gov's genesis (runs last: it stops the node)", async () => {
    closed = true;
    await api.close();
    await node.close();
    const doc = await exportState(
      {
        home: home.home,
        definition: TEST_DEFINITION,
        forZeroHeight: false,
        jailAllowedAddrs: [],
        modulesToExport: ["gov"],
      },
      { logger: silentLogger },
    );
    expect((doc.app_state.gov as Json).constitution).toBe(CONSTITUTION);
  });
});
