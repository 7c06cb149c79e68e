import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import * as v1q from "@chaind/proto/sdk/gov/v1/query_pb";
import {
  MsgExecLegacyContentSchema,
  MsgSubmitProposalSchema as V1SubmitSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { ProposalStatus, TextProposalSchema, VoteOption } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import * as q from "@chaind/proto/sdk/gov/v1beta1/query_pb";
import {
  MsgDepositSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRestServer } from "../../../node/src/server/rest/rest-server.js";
import { AppChain } from "../helpers/app-chain.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { testAccount } from "../helpers/test-home.js";

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked field by field below
type Json = any;

const val = testAccount("validator");
const alice = testAccount("alice");
const bob = testAccount("bob");

/** A TextProposal content under the namespace a client picked. */
const text = (title: string, description: string, ns: "sdk" | "cosmos" = "sdk") =>
  create(AnySchema, {
    typeUrl: `/${ns}.gov.v1beta1.TextProposal`,
    value: toBinary(TextProposalSchema, create(TextProposalSchema, { title, description })),
  });

async function query<O extends DescMessage>(
  chain: AppChain,
  path: string,
  input: DescMessage,
  req: object,
  output: O,
): Promise<MessageShape<O>> {
  const r = await chain.node.app.query(path, toBinary(input, create(input, req as never)));
  return fromBinary(output, r.value);
}

/** Opens a chain: the validator bonds 600; alice, bob and the validator have spending money. */
async function openChain(govPeriodMs: number) {
  const chain = await AppChain.open({
    accounts: [
      { account: val, coins: "1000000stake" },
      { account: alice, coins: "1000000stake" },
      { account: bob, coins: "1000000stake" },
    ],
    validator: { account: val, stake: 600n },
    govPeriodMs,
    tuneApp: (c) => {
      c.api.enable = true;
    },
  });
  const number = async (a: typeof val) => (await chain.account(a.address)).accountNumber;
  const signers = {
    val: new TxSigner(val, await number(val), chain.chainId),
    alice: new TxSigner(alice, await number(alice), chain.chainId),
    bob: new TxSigner(bob, await number(bob), chain.chainId),
  };
  /** Delivers one tx in a block and answers its result. */
  const deliver = async (tx: Uint8Array) => (await chain.deliver([tx]))[0];
  return { chain, signers, deliver };
}

describe("gov v1beta1 over the v1 state", () => {
  let env: Awaited<ReturnType<typeof openChain>>;
  let api: NodeServer;
  let id: bigint;
  const get = async (path: string) => {
    const res = await fetch(api.address + path);
    return { status: res.status, body: (await res.json()) as Json };
  };

  beforeAll(async () => {
    // Long periods: the proposals stay open while the tests look at them.
    env = await openChain(600_000);
    api = (await startRestServer(env.chain.node, { logger: silentLogger }))!;
  });
  afterAll(async () => {
    await api?.close();
    await env?.chain.close();
  });

  it("submits a legacy TextProposal (cosmos type URL) as a v1 proposal holding MsgExecLegacyContent", async () => {
    const r = await env.deliver(
      await env.signers.alice.sign([
        anyOf(MsgSubmitProposalSchema, {
          content: text("Signal", "Shall we?", "cosmos"),
          initialDeposit: [{ denom: "stake", amount: "400" }],
          proposer: alice.address,
        }),
      ]),
    );
    expect(r.code, r.log).toBe(0);
    id = BigInt(
      r.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!
        .value,
    );

    const v1 = await query(
      env.chain,
      "/sdk.gov.v1.Query/Proposal",
      v1q.QueryProposalRequestSchema,
      { proposalId: id },
      v1q.QueryProposalResponseSchema,
    );
    const p = v1.proposal!;
    expect(p).toMatchObject({ title: "Signal", summary: "Shall we?", proposer: alice.address, metadata: "" });
    expect(p.status).toBe(ProposalStatus.DEPOSIT_PERIOD);
    expect(p.messages.map((m) => m.typeUrl)).toEqual(["/sdk.gov.v1.MsgExecLegacyContent"]);
    const exec = fromBinary(MsgExecLegacyContentSchema, p.messages[0].value);
    expect(exec.authority).toBe(GOV_ADDRESS);
    expect(exec.content?.typeUrl).toBe("/sdk.gov.v1beta1.TextProposal");

    // Through v1beta1, in each namespace: the content comes back in the one asked in.
    for (const ns of ["sdk", "cosmos"]) {
      const legacy = await query(
        env.chain,
        `/${ns}.gov.v1beta1.Query/Proposal`,
        q.QueryProposalRequestSchema,
        { proposalId: id },
        q.QueryProposalResponseSchema,
      );
      const lp = legacy.proposal!;
      expect(lp.proposalId).toBe(id);
      expect(lp.status).toBe(ProposalStatus.DEPOSIT_PERIOD);
      expect(lp.content?.typeUrl).toBe(`/${ns}.gov.v1beta1.TextProposal`);
      expect(fromBinary(TextProposalSchema, lp.content!.value)).toMatchObject({
        title: "Signal",
        description: "Shall we?",
      });
      expect(lp.totalDeposit).toMatchObject([{ denom: "stake", amount: "400" }]);
      expect(lp.submitTime).toEqual(p.submitTime);
      expect(lp.depositEndTime).toEqual(p.depositEndTime);
      // Unset in v1 during the deposit period: Go's zero time, as gogoproto writes it.
      expect(lp.votingStartTime?.seconds).toBe(-62135596800n);
    }
  });

  it("takes deposits through v1beta1 until the voting period starts", async () => {
    const r = await env.deliver(
      await env.signers.bob.sign([
        anyOf(MsgDepositSchema, {
          proposalId: id,
          depositor: bob.address,
          amount: [{ denom: "stake", amount: "600" }],
        }),
      ]),
    );
    expect(r.code, r.log).toBe(0);
    const { proposal } = await query(
      env.chain,
      "/cosmos.gov.v1beta1.Query/Proposal",
      q.QueryProposalRequestSchema,
      { proposalId: id },
      q.QueryProposalResponseSchema,
    );
    expect(proposal?.status).toBe(ProposalStatus.VOTING_PERIOD);
    expect(proposal?.totalDeposit).toMatchObject([{ denom: "stake", amount: "1000" }]);
    const deposits = await query(
      env.chain,
      "/sdk.gov.v1beta1.Query/Deposits",
      q.QueryDepositsRequestSchema,
      { proposalId: id },
      q.QueryDepositsResponseSchema,
    );
    expect(deposits.deposits.map((d) => [d.depositor, d.amount[0].amount, d.proposalId]).sort()).toEqual(
      [
        [alice.address, "400", id],
        [bob.address, "600", id],
      ].sort(),
    );
    const one = await query(
      env.chain,
      "/sdk.gov.v1beta1.Query/Deposit",
      q.QueryDepositRequestSchema,
      { proposalId: id, depositor: bob.address },
      q.QueryDepositResponseSchema,
    );
    expect(one.deposit?.amount).toMatchObject([{ denom: "stake", amount: "600" }]);
  });

  it("records v1beta1 votes and weighted votes, seen through v1 and v1beta1, and tallies them", async () => {
    const yes = await env.deliver(
      await env.signers.val.sign([
        anyOf(MsgVoteSchema, { proposalId: id, voter: val.address, option: VoteOption.YES }),
      ]),
    );
    expect(yes.code, yes.log).toBe(0);
    // v1beta1 weights travel as the digits of the Dec scaled by 10^18.
    const weighted = await env.deliver(
      await env.signers.alice.sign([
        anyOf(MsgVoteWeightedSchema, {
          proposalId: id,
          voter: alice.address,
          options: [
            { option: VoteOption.YES, weight: "600000000000000000" },
            { option: VoteOption.NO, weight: "400000000000000000" },
          ],
        }),
      ]),
    );
    expect(weighted.code, weighted.log).toBe(0);

    const v1Vote = await query(
      env.chain,
      "/sdk.gov.v1.Query/Vote",
      v1q.QueryVoteRequestSchema,
      { proposalId: id, voter: alice.address },
      v1q.QueryVoteResponseSchema,
    );
    expect(v1Vote.vote?.options.map((o) => [o.option, o.weight])).toEqual([
      [VoteOption.YES, "0.600000000000000000"],
      [VoteOption.NO, "0.400000000000000000"],
    ]);
    const legacyVote = await query(
      env.chain,
      "/cosmos.gov.v1beta1.Query/Vote",
      q.QueryVoteRequestSchema,
      { proposalId: id, voter: val.address },
      q.QueryVoteResponseSchema,
    );
    expect(legacyVote.vote?.voter).toBe(val.address);
    // Cosmos leaves the deprecated single option unspecified: options carry the vote.
    expect(legacyVote.vote?.option).toBe(VoteOption.UNSPECIFIED);
    expect(legacyVote.vote?.options.map((o) => [o.option, o.weight])).toEqual([
      [VoteOption.YES, "1000000000000000000"],
    ]);
    const votes = await query(
      env.chain,
      "/sdk.gov.v1beta1.Query/Votes",
      q.QueryVotesRequestSchema,
      { proposalId: id },
      q.QueryVotesResponseSchema,
    );
    expect(votes.votes.map((v) => v.voter).sort()).toEqual([alice.address, val.address].sort());

    // Only the validator has bonded stake: its 600 count YES.
    const tally = await query(
      env.chain,
      "/cosmos.gov.v1beta1.Query/TallyResult",
      q.QueryTallyResultRequestSchema,
      { proposalId: id },
      q.QueryTallyResultResponseSchema,
    );
    expect(tally.tally).toMatchObject({ yes: "600", abstain: "0", no: "0", noWithVeto: "0" });
  });

  it("filters and pages proposals by status, voter and depositor", async () => {
    // A second proposal, left in its deposit period.
    const r = await env.deliver(
      await env.signers.bob.sign([
        anyOf(MsgSubmitProposalSchema, {
          content: text("Second", "Another"),
          initialDeposit: [{ denom: "stake", amount: "10" }],
          proposer: bob.address,
        }),
      ]),
    );
    expect(r.code, r.log).toBe(0);
    const ids = async (req: object) =>
      (
        await query(
          env.chain,
          "/cosmos.gov.v1beta1.Query/Proposals",
          q.QueryProposalsRequestSchema,
          req,
          q.QueryProposalsResponseSchema,
        )
      ).proposals.map((p) => p.proposalId);
    expect(await ids({})).toEqual([id, id + 1n]);
    expect(await ids({ proposalStatus: ProposalStatus.VOTING_PERIOD })).toEqual([id]);
    expect(await ids({ proposalStatus: ProposalStatus.DEPOSIT_PERIOD })).toEqual([id + 1n]);
    expect(await ids({ voter: alice.address })).toEqual([id]);
    expect(await ids({ depositor: bob.address })).toEqual([id, id + 1n]);
    expect(await ids({ depositor: alice.address })).toEqual([id]);
    const page = await query(
      env.chain,
      "/sdk.gov.v1beta1.Query/Proposals",
      q.QueryProposalsRequestSchema,
      { pagination: { limit: 1n, countTotal: true } },
      q.QueryProposalsResponseSchema,
    );
    expect(page.proposals.map((p) => p.proposalId)).toEqual([id]);
    expect(page.pagination?.total).toBe(2n);
    const next = await query(
      env.chain,
      "/sdk.gov.v1beta1.Query/Proposals",
      q.QueryProposalsRequestSchema,
      { pagination: { key: page.pagination!.nextKey, limit: 1n } },
      q.QueryProposalsResponseSchema,
    );
    expect(next.proposals.map((p) => p.proposalId)).toEqual([id + 1n]);
  });

  it("refuses a vote, deposit or proposal signed by anyone but the account it names", async () => {
    const forged = [
      anyOf(MsgVoteSchema, { proposalId: id, voter: alice.address, option: VoteOption.NO_WITH_VETO }),
      anyOf(MsgVoteWeightedSchema, {
        proposalId: id,
        voter: alice.address,
        options: [{ option: VoteOption.NO, weight: "1000000000000000000" }],
      }),
      anyOf(MsgDepositSchema, {
        proposalId: id,
        depositor: alice.address,
        amount: [{ denom: "stake", amount: "5" }],
      }),
      anyOf(MsgSubmitProposalSchema, {
        content: text("Forged", "by bob"),
        initialDeposit: [{ denom: "stake", amount: "5" }],
        proposer: alice.address,
      }),
    ];
    const before = await env.chain.balance(alice.address);
    for (const msg of forged) {
      // Bob signs a message naming alice: CheckTx refuses it, and so does a block that carries it anyway.
      // (A signer of its own: these txs fail before bob's sequence moves.)
      const { accountNumber } = await env.chain.account(bob.address);
      const tx = await new TxSigner(bob, accountNumber, env.chain.chainId).sign([msg]);
      const checked = await env.chain.check(tx);
      expect(checked).toMatchObject({ code: 8, codespace: "sdk" });
      expect(checked.log).toContain(`pubKey does not match signer address ${alice.address}`);
      const delivered = await env.deliver(tx);
      expect(delivered).toMatchObject({ code: 8, codespace: "sdk" });
    }
    const vote = await query(
      env.chain,
      "/sdk.gov.v1.Query/Vote",
      v1q.QueryVoteRequestSchema,
      { proposalId: id, voter: alice.address },
      v1q.QueryVoteResponseSchema,
    );
    // Alice's own weighted vote stands; her coins did not move.
    expect(vote.vote?.options.map((o) => o.option)).toEqual([VoteOption.YES, VoteOption.NO]);
    expect(await env.chain.balance(alice.address)).toBe(before);
  });

  it("refuses contents without a legacy handler and invalid text proposals with Cosmos' errors", async () => {
    const submit = async (content: ReturnType<typeof text> | undefined) =>
      env.deliver(
        await env.signers.alice.sign([
          anyOf(MsgSubmitProposalSchema, {
            content,
            initialDeposit: [{ denom: "stake", amount: "1" }],
            proposer: alice.address,
          }),
        ]),
      );
    // x/upgrade of Cosmos SDK 0.50 has no legacy handler: upgrades go through v1 and MsgSoftwareUpgrade.
    const upgrade = await submit(
      create(AnySchema, {
        typeUrl: "/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal",
        value: new Uint8Array(),
      }),
    );
    expect(upgrade).toMatchObject({ code: 9, codespace: "gov" });
    expect(upgrade.log).toContain("no handler exists for proposal type");
    expect(upgrade.log).toContain("/cosmos.upgrade.v1beta1.SoftwareUpgradeProposal");
    const missing = await submit(undefined);
    expect(missing).toMatchObject({ code: 5, codespace: "gov" });
    expect(missing.log).toContain("missing content");
    const blank = await submit(text(" ", "d"));
    expect(blank.log).toContain("proposal title cannot be blank");
    const long = await submit(text("t".repeat(141), "d"));
    expect(long.log).toContain("proposal title is longer than max length of 140");
    const noDescription = await submit(text("t", ""));
    expect(noDescription.log).toContain("proposal description cannot be blank");

    const badWeight = await env.deliver(
      await env.signers.bob.sign([
        anyOf(MsgVoteWeightedSchema, {
          proposalId: id,
          voter: bob.address,
          options: [{ option: VoteOption.YES, weight: "1.0" }],
        }),
      ]),
    );
    expect(badWeight).toMatchObject({ code: 7, codespace: "gov" });
    expect(badWeight.log).toContain("expected the digits of a Dec scaled by 10^18");
    const unspecified = await env.deliver(
      await env.signers.bob.sign([
        anyOf(MsgVoteSchema, { proposalId: id, voter: bob.address, option: VoteOption.UNSPECIFIED }),
      ]),
    );
    expect(unspecified).toMatchObject({ code: 7, codespace: "gov" });
  });

  it("shows a v1 proposal's single message as its v1beta1 content, and refuses to convert several", async () => {
    const plan = { name: "v2", height: 1_000_000n, info: "" };
    const r = await env.deliver(
      await env.signers.val.sign([
        anyOf(V1SubmitSchema, {
          messages: [anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan })],
          initialDeposit: [{ denom: "stake", amount: "10" }],
          proposer: val.address,
          title: "Upgrade",
          summary: "to v2",
        }),
        anyOf(V1SubmitSchema, {
          messages: [
            anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan }),
            anyOf(MsgCancelUpgradeSchema, { authority: GOV_ADDRESS }),
          ],
          initialDeposit: [{ denom: "stake", amount: "10" }],
          proposer: val.address,
          title: "Two",
          summary: "messages",
        }),
      ]),
    );
    expect(r.code, r.log).toBe(0);
    const [single, double] = r.events
      .filter((e) => e.type === "submit_proposal")
      .map((e) => BigInt(e.attributes.find((a) => a.key === "proposal_id")!.value));
    const { proposal } = await query(
      env.chain,
      "/cosmos.gov.v1beta1.Query/Proposal",
      q.QueryProposalRequestSchema,
      { proposalId: single },
      q.QueryProposalResponseSchema,
    );
    expect(proposal?.content?.typeUrl).toBe("/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade");
    expect(fromBinary(MsgSoftwareUpgradeSchema, proposal!.content!.value).plan?.name).toBe("v2");
    await expect(
      env.chain.node.app.query(
        "/sdk.gov.v1beta1.Query/Proposal",
        toBinary(q.QueryProposalRequestSchema, create(q.QueryProposalRequestSchema, { proposalId: double })),
      ),
    ).rejects.toThrow("not exactly one");
  });

  it("answers params in the v1beta1 shapes, tally params as LegacyDec bytes", async () => {
    const params = (paramsType: string) =>
      query(
        env.chain,
        "/cosmos.gov.v1beta1.Query/Params",
        q.QueryParamsRequestSchema,
        { paramsType },
        q.QueryParamsResponseSchema,
      );
    const voting = await params("voting");
    expect(voting.votingParams?.votingPeriod).toMatchObject({ seconds: 600n, nanos: 0 });
    const deposit = await params("deposit");
    expect(deposit.depositParams?.minDeposit).toMatchObject([{ denom: "stake", amount: "1000" }]);
    expect(deposit.depositParams?.maxDepositPeriod).toMatchObject({ seconds: 600n });
    const tally = await params("tallying");
    const ascii = (b: Uint8Array | undefined) => new TextDecoder().decode(b);
    expect(ascii(tally.tallyParams?.quorum)).toBe("334000000000000000");
    expect(ascii(tally.tallyParams?.threshold)).toBe("500000000000000000");
    expect(ascii(tally.tallyParams?.vetoThreshold)).toBe("334000000000000000");
    await expect(
      env.chain.node.app.query(
        "/sdk.gov.v1beta1.Query/Params",
        toBinary(q.QueryParamsRequestSchema, create(q.QueryParamsRequestSchema, { paramsType: "nope" })),
      ),
    ).rejects.toThrow("nope is not a valid parameter type");
  });

  it("serves the v1beta1 REST routes under /cosmos and /sdk, printed as Cosmos' gateway prints them", async () => {
    const list = await get("/cosmos/gov/v1beta1/proposals?proposal_status=PROPOSAL_STATUS_VOTING_PERIOD");
    expect(list.status).toBe(200);
    const p = list.body.proposals.find((x: Json) => x.proposal_id === String(id));
    expect(p.content).toEqual({
      "@type": "/cosmos.gov.v1beta1.TextProposal",
      title: "Signal",
      description: "Shall we?",
    });
    expect(p.status).toBe("PROPOSAL_STATUS_VOTING_PERIOD");
    expect(p.final_tally_result).toEqual({ yes: "0", abstain: "0", no: "0", no_with_veto: "0" });
    expect(p.total_deposit).toEqual([{ denom: "stake", amount: "1000" }]);
    expect(p.voting_start_time).toMatch(/^\d{4}-\d\d-\d\dT/);
    const pending = await get(`/sdk/gov/v1beta1/proposals/${id + 1n}`);
    expect(pending.status).toBe(200);
    expect(pending.body.proposal.content["@type"]).toBe("/sdk.gov.v1beta1.TextProposal");
    expect(pending.body.proposal.voting_start_time).toBe("0001-01-01T00:00:00Z");

    const vote = await get(`/cosmos/gov/v1beta1/proposals/${id}/votes/${alice.address}`);
    expect(vote.body).toEqual({
      vote: {
        proposal_id: String(id),
        voter: alice.address,
        option: "VOTE_OPTION_UNSPECIFIED",
        options: [
          { option: "VOTE_OPTION_YES", weight: "0.600000000000000000" },
          { option: "VOTE_OPTION_NO", weight: "0.400000000000000000" },
        ],
      },
    });
    const votes = await get(`/cosmos/gov/v1beta1/proposals/${id}/votes`);
    expect(votes.body.votes).toHaveLength(2);
    expect(votes.body.pagination.total).toBe("2");
    const deposit = await get(`/cosmos/gov/v1beta1/proposals/${id}/deposits/${bob.address}`);
    expect(deposit.body).toEqual({
      deposit: {
        proposal_id: String(id),
        depositor: bob.address,
        amount: [{ denom: "stake", amount: "600" }],
      },
    });
    const deposits = await get(`/cosmos/gov/v1beta1/proposals/${id}/deposits`);
    expect(deposits.body.deposits).toHaveLength(2);
    const tally = await get(`/cosmos/gov/v1beta1/proposals/${id}/tally`);
    expect(tally.body).toEqual({ tally: { yes: "600", abstain: "0", no: "0", no_with_veto: "0" } });

    const tallying = await get("/cosmos/gov/v1beta1/params/tallying");
    expect(tallying.body).toEqual({
      voting_params: { voting_period: "0s" },
      deposit_params: { min_deposit: [], max_deposit_period: "0s" },
      tally_params: {
        quorum: "0.334000000000000000",
        threshold: "0.500000000000000000",
        veto_threshold: "0.334000000000000000",
      },
    });
    const voting = await get("/sdk/gov/v1beta1/params/voting");
    expect(voting.body.voting_params).toEqual({ voting_period: "600s" });
    expect(voting.body.tally_params.quorum).toBe("0.000000000000000000");

    expect((await get("/cosmos/gov/v1beta1/proposals/0")).status).toBe(400);
    const missing = await get("/cosmos/gov/v1beta1/proposals/999");
    expect(missing.status).toBe(404);
    expect(missing.body.message).toContain("proposal 999 doesn't exist");
    expect((await get("/cosmos/gov/v1beta1/params/nope")).status).toBe(400);
  });
});

describe("gov v1beta1 proposals to the end", () => {
  it("passes a legacy TextProposal voted through v1beta1, with its final tally in both versions", async () => {
    const env = await openChain(1000);
    try {
      const submitted = await env.deliver(
        await env.signers.val.sign([
          anyOf(MsgSubmitProposalSchema, {
            content: text("Signal", "yes please"),
            initialDeposit: [{ denom: "stake", amount: "1000" }],
            proposer: val.address,
          }),
        ]),
      );
      expect(submitted.code, submitted.log).toBe(0);
      const voted = await env.deliver(
        await env.signers.val.sign([
          anyOf(MsgVoteSchema, { proposalId: 1n, voter: val.address, option: VoteOption.YES }),
        ]),
      );
      expect(voted.code, voted.log).toBe(0);
      // Blocks carry the wall-clock time: wait out the 1 s voting period, then end it in a block.
      await new Promise((r) => setTimeout(r, 1100));
      await env.chain.deliver([]);
      const { proposal } = await query(
        env.chain,
        "/cosmos.gov.v1beta1.Query/Proposal",
        q.QueryProposalRequestSchema,
        { proposalId: 1n },
        q.QueryProposalResponseSchema,
      );
      expect(proposal?.status).toBe(ProposalStatus.PASSED);
      expect(proposal?.finalTallyResult).toMatchObject({ yes: "600", no: "0", noWithVeto: "0" });
      const v1 = await query(
        env.chain,
        "/sdk.gov.v1.Query/Proposal",
        v1q.QueryProposalRequestSchema,
        { proposalId: 1n },
        v1q.QueryProposalResponseSchema,
      );
      expect(v1.proposal?.failedReason).toBe("");
      expect(v1.proposal?.finalTallyResult?.yesCount).toBe("600");
      // Deposits went back: the proposal passed.
      expect(await env.chain.balance(val.address)).toBeGreaterThan(0n);
    } finally {
      await env.chain.close();
    }
  });
});
