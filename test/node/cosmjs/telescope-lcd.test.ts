import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { MsgSubmitProposalSchema, MsgVoteSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { LCDClient } from "@cosmology/lcd";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeProcess } from "../helpers/chaind-process.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";
import { TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: the LCD answers the SDK's JSON untyped
type Json = any;

const validator = testAccount("lcd-validator");
const bob = testAccount("lcd-bob");
const STAKE = 700_000n;
/** Long enough for the submit and the vote to land inside it on a loaded machine, short enough to wait out. */
const VOTING_MS = 5000;

/** A message as an Any with its `/cosmos.` type URL, as Telescope's and CosmJS's registries pack it. */
function cosmosAny<D extends DescMessage>(schema: D, init: MessageInitShape<D>): Any {
  return create(AnySchema, {
    typeUrl: `/${schema.typeName.replace(/^sdk\./, "cosmos.")}`,
    value: toBinary(schema, create(schema, init)),
  });
}

// A real chaind process; Telescope's LCD client (@cosmology/lcd, the base of every generated
// `LCDQueryClient`) reads its REST API with the paths and query parameters Telescope's code generator writes.
describe("Telescope's LCD client against the REST API", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let lcd: LCDClient;
  let validatorTx: TxSigner;
  let bobTx: TxSigner;
  let sendHash: string;
  let textId: string;
  let upgradeId: string;

  /** Broadcasts through the LCD's POST and waits until the tx is found by hash; answers its tx_response. */
  async function commit(tx: Uint8Array): Promise<Json> {
    const sent: Json = await lcd.post("cosmos/tx/v1beta1/txs", {
      tx_bytes: Buffer.from(tx).toString("base64"),
      mode: "BROADCAST_MODE_SYNC",
    });
    expect(sent.tx_response.code, sent.tx_response.raw_log).toBe(0);
    const hash = Buffer.from(sha256(tx)).toString("hex").toUpperCase();
    expect(sent.tx_response.txhash).toBe(hash);
    for (let i = 0; i < 240; i++) {
      const found = await lcd.get<Json>(`cosmos/tx/v1beta1/txs/${hash}`).catch(() => undefined);
      if (found) {
        expect(found.tx_response.code, found.tx_response.raw_log).toBe(0);
        return found.tx_response;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`tx ${hash} never committed`);
  }
  const proposalIdOf = (txResponse: Json): string =>
    txResponse.events
      .find((e: Json) => e.type === "submit_proposal")
      .attributes.find((a: Json) => a.key === "proposal_id").value;

  beforeAll(async () => {
    home = makeTestHome({
      chainId: "telescope-1",
      accounts: [
        { account: validator, coins: "50000000stake" },
        { account: bob, coins: "50000000stake" },
      ],
      validator: { account: validator, stake: STAKE },
      govPeriodMs: VOTING_MS,
      tuneApp: (c) => {
        c.api.enable = true;
      },
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 200;
      },
    });
    validatorTx = new TxSigner(validator, 0n, home.chainId);
    bobTx = new TxSigner(bob, 1n, home.chainId);
    node = new NodeProcess(home.home);
    const api = (await node.waitFor(/\bapi listening address=(\S+)/))[1].replace(/^tcp:/, "http:");
    await node.waitFor(/committed block .*height=2/);
    lcd = new LCDClient({ restEndpoint: api });

    const send = await commit(
      await bobTx.sign([
        cosmosAny(MsgSendSchema, {
          fromAddress: bob.address,
          toAddress: validator.address,
          amount: [{ denom: "stake", amount: "4321" }],
        }),
      ]),
    );
    sendHash = send.txhash;
    const text = await commit(
      await bobTx.sign([
        cosmosAny(MsgSubmitProposalSchema, {
          messages: [],
          initialDeposit: [{ denom: "stake", amount: "1000" }],
          proposer: bob.address,
          metadata: "ipfs://telescope-text",
          title: "Signal",
          summary: "A text proposal",
        }),
      ]),
    );
    textId = proposalIdOf(text);
    const upgrade = await commit(
      await validatorTx.sign([
        cosmosAny(MsgSubmitProposalSchema, {
          messages: [
            cosmosAny(MsgSoftwareUpgradeSchema, {
              authority: GOV_ADDRESS,
              plan: { name: "lcd-upgrade", height: 1_000_000n, info: "read by Telescope" },
            }),
          ],
          initialDeposit: [{ denom: "stake", amount: "1000" }],
          proposer: validator.address,
          title: "Upgrade",
          summary: "To lcd-upgrade",
        }),
      ]),
    );
    upgradeId = proposalIdOf(upgrade);
    await commit(
      await validatorTx.sign([
        cosmosAny(MsgVoteSchema, {
          proposalId: BigInt(upgradeId),
          voter: validator.address,
          option: VoteOption.YES,
        }),
      ]),
    );
    // The voting period ends by block time: poll until the tally is in.
    for (let i = 0; i < 240; i++) {
      const { proposal } = await lcd.get<Json>(`cosmos/gov/v1/proposals/${upgradeId}`);
      if (proposal.status !== "PROPOSAL_STATUS_VOTING_PERIOD") break;
      await new Promise((r) => setTimeout(r, 250));
    }
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  it("bank balances, with the total counted when no pagination is given", async () => {
    const r = await lcd.get<Json>(`cosmos/bank/v1beta1/balances/${bob.address}`);
    // Two fees of 2000 and the 4321 sent; the text proposal's deposit came back when it failed quorum.
    expect(r.balances).toEqual([{ denom: "stake", amount: String(50_000_000 - 4321 - 2 * 2000) }]);
    expect(r.pagination).toEqual({ next_key: null, total: "1" });
    const one = await lcd.get<Json>(`cosmos/bank/v1beta1/balances/${bob.address}/by_denom`, {
      params: { denom: "stake" },
    });
    expect(one.balance).toEqual(r.balances[0]);
  });

  it("auth account: a BaseAccount with its public key, number and sequence", async () => {
    const { account } = await lcd.get<Json>(`cosmos/auth/v1beta1/accounts/${bob.address}`);
    expect(account).toEqual({
      "@type": "/cosmos.auth.v1beta1.BaseAccount",
      address: bob.address,
      pub_key: { "@type": "/cosmos.crypto.secp256k1.PubKey", key: Buffer.from(bob.pub).toString("base64") },
      account_number: "1",
      sequence: "2",
    });
  });

  it("staking validators filtered by status=BOND_STATUS_BONDED, as Telescope sends the enum", async () => {
    const bonded = await lcd.get<Json>("cosmos/staking/v1beta1/validators", {
      params: { status: "BOND_STATUS_BONDED" },
    });
    expect(bonded.validators).toHaveLength(1);
    expect(bonded.validators[0]).toMatchObject({
      status: "BOND_STATUS_BONDED",
      tokens: STAKE.toString(),
      jailed: false,
    });
    expect(bonded.validators[0].operator_address).toMatch(/^sdkvaloper1/);
    expect(bonded.pagination.total).toBe("1");
    const unbonded = await lcd.get<Json>("cosmos/staking/v1beta1/validators", {
      params: { status: "BOND_STATUS_UNBONDED" },
    });
    expect(unbonded.validators).toEqual([]);
  });

  it("gov v1 proposals: the text proposal and the passed upgrade, with its plan's zero time", async () => {
    const { proposals } = await lcd.get<Json>("cosmos/gov/v1/proposals", {
      params: { "pagination.limit": "10" },
    });
    expect(proposals.map((p: Json) => p.id)).toEqual([textId, upgradeId]);
    const [text, upgrade] = proposals;
    expect(text).toMatchObject({
      messages: [],
      metadata: "ipfs://telescope-text",
      proposer: bob.address,
      status: "PROPOSAL_STATUS_REJECTED",
    });
    expect(upgrade.status).toBe("PROPOSAL_STATUS_PASSED");
    expect(upgrade.messages).toEqual([
      {
        "@type": "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade",
        authority: GOV_ADDRESS,
        plan: {
          name: "lcd-upgrade",
          time: "0001-01-01T00:00:00Z",
          height: "1000000",
          info: "read by Telescope",
          upgraded_client_state: null,
        },
      },
    ]);
    const passed = await lcd.get<Json>("cosmos/gov/v1/proposals", {
      params: { proposal_status: "PROPOSAL_STATUS_PASSED" },
    });
    expect(passed.proposals.map((p: Json) => p.id)).toEqual([upgradeId]);
  });

  it("upgrade current_plan and applied_plan", async () => {
    const { plan } = await lcd.get<Json>("cosmos/upgrade/v1beta1/current_plan");
    expect(plan).toEqual({
      name: "lcd-upgrade",
      time: "0001-01-01T00:00:00Z",
      height: "1000000",
      info: "read by Telescope",
      upgraded_client_state: null,
    });
    // Not applied yet: height 0, as the SDK answers for a name it has not run.
    expect(await lcd.get<Json>("cosmos/upgrade/v1beta1/applied_plan/lcd-upgrade")).toEqual({ height: "0" });
  });

  it("tx by hash: the decoded tx and its result; an unknown hash is the SDK's NotFound", async () => {
    const { tx, tx_response } = await lcd.get<Json>(`cosmos/tx/v1beta1/txs/${sendHash}`);
    expect(tx_response).toMatchObject({ txhash: sendHash, code: 0 });
    expect(Number(tx_response.height)).toBeGreaterThan(2);
    expect(tx.body.messages).toEqual([
      {
        "@type": "/cosmos.bank.v1beta1.MsgSend",
        from_address: bob.address,
        to_address: validator.address,
        amount: [{ denom: "stake", amount: "4321" }],
      },
    ]);
    expect(tx.auth_info.signer_infos[0].mode_info).toEqual({ single: { mode: "SIGN_MODE_DIRECT" } });

    const missing = "00".repeat(32);
    const err: Json = await lcd.get(`cosmos/tx/v1beta1/txs/${missing}`).catch((e: unknown) => e);
    expect(err.response.status).toBe(404);
    expect(err.response.data).toMatchObject({ code: 5 });
    expect(err.response.data.message).toMatch(/tx not found/);
  });
});
