import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const alice = testAccount("alice");
const bob = testAccount("bob");

// Issue 34, point 3: Cosmos SDK 0.50 queries that were missing, empty or answered otherwise than the SDK answers
// them, as Keplr, InterchainJS and Telescope call them.
describe("SDK 0.50 queries over REST, gRPC and abci_query", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
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

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      validator: { account: alice, stake: 1000n },
      tuneApp: (c) => {
        c.api.enable = true;
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    api = (await startRestServer(node, { logger: silentLogger }))!;
    await node.producer.produce();
    const acct = await get(`/sdk/auth/v1beta1/accounts/${alice.address}`);
    signer = new TxSigner(alice, BigInt(acct.body.account.account_number), home.chainId);
  });
  afterAll(async () => {
    await api?.close();
    await node?.close();
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
    const tx = await signer.sign([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount: "999999999" }],
      }),
    ]);
    const sim = await post("/sdk/tx/v1beta1/simulate", { tx_bytes: Buffer.from(tx).toString("base64") });
    expect(sim.status, JSON.stringify(sim.body)).toBe(500);
    expect(sim.body.code).toBe(2);
    expect(sim.body.details).toEqual([]);
    expect(sim.body.message).toMatch(
      /^spendable balance \d+stake is smaller than 999999999stake: insufficient funds With gas wanted: '\d+' and gas used: '[1-9]\d*' $/,
    );
  });
});
