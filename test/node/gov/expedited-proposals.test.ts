import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { type Proposal, ProposalStatus, VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { QueryProposalRequestSchema, QueryProposalResponseSchema } from "@chaind/proto/sdk/gov/v1/query_pb";
import { MsgSubmitProposalSchema, MsgVoteSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { MsgDelegateSchema } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { GOV_ADDRESS, queryApp } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const val = testAccount("validator");
const alice = testAccount("alice");
const valoper = new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(val.address));
/** Regular votes last PERIOD_MS, expedited ones half as long; long enough for a few blocks on a loaded machine. */
const PERIOD_MS = 6000;
/** Waits until a proposal's vote has ended by the wall clock, which block times follow. */
const untilVoteEnds = (p: Proposal) =>
  new Promise((r) => setTimeout(r, Math.max(0, timestampDate(p.votingEndTime!).getTime() - Date.now() + 50)));

/** Regular votes last 6 s, expedited ones 3 s (half, as testnet homes set them); deposits 1000 and 5000. */
describe("expedited proposals (gov v1): shorter vote, higher bar, larger deposit, converted when they fail", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  function home(editGov: (params: Record<string, unknown>) => void = () => {}) {
    const h = makeTestHome({
      accounts: [
        { account: val, coins: "1000000stake" },
        { account: alice, coins: "1000000stake" },
      ],
      validator: { account: val, stake: 600n },
      govPeriodMs: PERIOD_MS,
    });
    cleanups.push(h.cleanup);
    const path = join(h.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(path, "utf8"));
    genesis.app_state.gov.params.expedited_min_deposit = [{ denom: "stake", amount: "5000" }];
    editGov(genesis.app_state.gov.params);
    writeFileSync(path, JSON.stringify(genesis));
    return h;
  }

  /** The validator holds 600 of 1000 bonded: 60% yes passes a regular vote (50%), not an expedited one (66.7%). */
  async function chain() {
    const h = home();
    const node = await ChainNode.open(
      { home: h.home, definition: TEST_DEFINITION },
      { logger: silentLogger },
    );
    cleanups.push(() => node.close());
    await node.producer.produce();
    const signers = { val: new TxSigner(val, 0n, h.chainId), alice: new TxSigner(alice, 1n, h.chainId) };
    const delegate = anyOf(MsgDelegateSchema, {
      delegatorAddress: alice.address,
      validatorAddress: valoper,
      amount: { denom: "stake", amount: "400" },
    });
    expect((await deliver(node, signers.alice, [delegate])).code).toBe(0);
    return { node, signers };
  }

  async function deliver(node: ChainNode, signer: TxSigner, msgs: ReturnType<typeof anyOf>[]) {
    const check = await node.mempool.add(await signer.sign(msgs));
    expect(check.code, check.log).toBe(0);
    return (await node.producer.produce()).txResults[0];
  }

  async function submitUpgrade(node: ChainNode, signer: TxSigner, deposit: string): Promise<bigint> {
    const upgrade = anyOf(MsgSoftwareUpgradeSchema, {
      authority: GOV_ADDRESS,
      plan: { name: "fast", height: 100_000n, info: "" },
    });
    const r = await deliver(node, signer, [
      anyOf(MsgSubmitProposalSchema, {
        messages: [upgrade],
        initialDeposit: [{ denom: "stake", amount: deposit }],
        proposer: signer.account.address,
        title: "fast",
        summary: "expedited",
        expedited: true,
      }),
    ]);
    expect(r.code, r.log).toBe(0);
    return BigInt(
      r.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!
        .value,
    );
  }

  const proposal = async (node: ChainNode, id: bigint): Promise<Proposal> =>
    (
      await queryApp(
        node,
        "/sdk.gov.v1.Query/Proposal",
        QueryProposalRequestSchema,
        { proposalId: id },
        QueryProposalResponseSchema,
      )
    ).proposal!;
  const vote = (node: ChainNode, signer: TxSigner, id: bigint, option = VoteOption.YES) =>
    deliver(node, signer, [anyOf(MsgVoteSchema, { proposalId: id, voter: signer.account.address, option })]);
  const lengthMs = (p: Proposal) =>
    timestampDate(p.votingEndTime!).getTime() - timestampDate(p.votingStartTime!).getTime();

  it("with the expedited deposit it votes for the expedited period and passes early at the expedited bar; the plan is set", async () => {
    const { node, signers } = await chain();
    const id = await submitUpgrade(node, signers.val, "5000");
    expect((await vote(node, signers.val, id)).code).toBe(0);
    const voting = await proposal(node, id);
    expect(voting).toMatchObject({ status: ProposalStatus.VOTING_PERIOD, expedited: true });
    expect(lengthMs(voting)).toBe(PERIOD_MS / 2);
    await untilVoteEnds(voting);
    await node.producer.produce();
    expect((await proposal(node, id)).status).toBe(ProposalStatus.PASSED);
    const plan = await queryApp(
      node,
      "/sdk.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      {},
      QueryCurrentPlanResponseSchema,
    );
    expect(plan.plan?.name).toBe("fast");
  });

  it("60% yes fails the expedited bar: the proposal becomes regular, votes again until the regular end, and passes at 50%", async () => {
    const { node, signers } = await chain();
    const id = await submitUpgrade(node, signers.val, "5000");
    expect((await vote(node, signers.val, id)).code).toBe(0);
    expect((await vote(node, signers.alice, id, VoteOption.NO)).code).toBe(0);
    await untilVoteEnds(await proposal(node, id));
    await node.producer.produce();
    const regular = await proposal(node, id);
    expect(regular).toMatchObject({ status: ProposalStatus.VOTING_PERIOD, expedited: false });
    expect(lengthMs(regular)).toBe(PERIOD_MS);
    expect(regular.finalTallyResult?.yesCount).toBe("600");
    // As in Cosmos, the tally cleared the votes: both vote again in the regular period.
    expect((await vote(node, signers.val, id)).code).toBe(0);
    expect((await vote(node, signers.alice, id, VoteOption.NO)).code).toBe(0);
    await untilVoteEnds(regular);
    await node.producer.produce();
    expect((await proposal(node, id)).status).toBe(ProposalStatus.PASSED);
  });

  it("with only the regular minimum deposit an expedited proposal waits in its deposit period", async () => {
    const { node, signers } = await chain();
    const id = await submitUpgrade(node, signers.val, "1000");
    expect((await proposal(node, id)).status).toBe(ProposalStatus.DEPOSIT_PERIOD);
  });

  it("a genesis whose expedited params do not beat the regular ones is refused, naming the param", async () => {
    const cases: [(p: Record<string, unknown>) => void, RegExp][] = [
      [(p) => (p.expedited_voting_period = "6s"), /expedited voting period 6s must be strictly less/],
      [
        (p) => (p.expedited_threshold = "0.4"),
        /expedited vote threshold 0.4, must be greater than the regular/,
      ],
      [(p) => (p.expedited_min_deposit = [{ denom: "stake", amount: "1000" }]), /expedited minimum deposit/],
    ];
    for (const [edit, re] of cases) {
      const h = home(edit);
      await expect(
        ChainNode.open({ home: h.home, definition: TEST_DEFINITION }, { logger: silentLogger }),
      ).rejects.toThrow(re);
    }
  });
});
