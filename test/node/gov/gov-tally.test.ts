import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import {
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
  QueryParamsRequestSchema,
  QueryParamsResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema, MsgUpdateParamsSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { ProposalStatus, VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import {
  QueryProposalRequestSchema,
  QueryProposalResponseSchema,
  QueryProposalsRequestSchema,
  QueryProposalsResponseSchema,
  QueryVoteRequestSchema,
  QueryVoteResponseSchema,
} from "@chaind/proto/sdk/gov/v1/query_pb";
import {
  MsgDepositSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { MsgDelegateSchema, MsgUndelegateSchema } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { GOV_ADDRESS, queryApp } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const val = testAccount("validator");
const alice = testAccount("alice");
const bob = testAccount("bob");
const valoper = new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(val.address));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("gov v1 and staking", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** validator bonds 600, alice delegates 400 of her own (so her vote can override the validator's). */
  async function chain() {
    const h = makeTestHome({
      accounts: [
        { account: val, coins: "1000000stake" },
        { account: alice, coins: "1000000stake" },
        { account: bob, coins: "1000000stake" },
      ],
      validator: { account: val, stake: 600n },
      govPeriodMs: 1000,
    });
    cleanups.push(h.cleanup);
    // Unbonding in a second, so the payout can be watched.
    const genesisPath = join(h.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(genesisPath, "utf8"));
    genesis.app_state.staking.params.unbonding_time = "1s";
    writeFileSync(genesisPath, JSON.stringify(genesis));
    const node = await ChainNode.open(
      { home: h.home, definition: TEST_DEFINITION },
      { logger: silentLogger },
    );
    cleanups.push(() => node.close());
    await node.producer.produce();
    const signers = {
      val: new TxSigner(val, 0n, h.chainId),
      alice: new TxSigner(alice, 1n, h.chainId),
      bob: new TxSigner(bob, 2n, h.chainId),
    };
    await deliver(node, signers.alice, [
      anyOf(MsgDelegateSchema, {
        delegatorAddress: alice.address,
        validatorAddress: valoper,
        amount: { denom: "stake", amount: "400" },
      }),
    ]);
    return { node, signers };
  }

  async function deliver(node: ChainNode, signer: TxSigner, msgs: ReturnType<typeof anyOf>[]) {
    const check = await node.mempool.add(await signer.sign(msgs));
    expect(check.code, check.log).toBe(0);
    const b = await node.producer.produce();
    return b.txResults[0];
  }

  /** A proposal turning bank's default send switch off (it can only pass), or, `payBob`, paying from the gov account. */
  async function propose(node: ChainNode, signer: TxSigner, deposit = "1000", payBob = false) {
    const msg = payBob
      ? anyOf(MsgSendSchema, {
          fromAddress: GOV_ADDRESS,
          toAddress: bob.address,
          amount: [{ denom: "stake", amount: "5" }],
        })
      : anyOf(MsgUpdateParamsSchema, { authority: GOV_ADDRESS, params: { defaultSendEnabled: false } });
    const r = await deliver(node, signer, [
      anyOf(MsgSubmitProposalSchema, {
        messages: [msg],
        initialDeposit: deposit === "0" ? [] : [{ denom: "stake", amount: deposit }],
        proposer: signer.account.address,
        title: "a proposal",
        summary: "from the tests",
      }),
    ]);
    expect(r.code, r.log).toBe(0);
    const event = r.events.find((e) => e.type === "submit_proposal")!;
    return BigInt(event.attributes.find((a) => a.key === "proposal_id")!.value);
  }

  const proposal = async (node: ChainNode, id: bigint) =>
    (
      await queryApp(
        node,
        "/sdk.gov.v1.Query/Proposal",
        QueryProposalRequestSchema,
        { proposalId: id },
        QueryProposalResponseSchema,
      )
    ).proposal!;
  const balance = async (node: ChainNode, address: string) =>
    (
      await queryApp(
        node,
        "/sdk.bank.v1beta1.Query/Balance",
        QueryBalanceRequestSchema,
        { address, denom: "stake" },
        QueryBalanceResponseSchema,
      )
    ).balance!.amount;
  const endVoting = async (node: ChainNode) => {
    await sleep(1100);
    await node.producer.produce();
  };

  it("a delegator's own vote overrides its validator's: 600 yes against 400 no passes, and runs the message", async () => {
    const { node, signers } = await chain();
    const id = await propose(node, signers.val);
    await deliver(node, signers.val, [
      anyOf(MsgVoteSchema, { proposalId: id, voter: val.address, option: VoteOption.YES }),
    ]);
    await deliver(node, signers.alice, [
      anyOf(MsgVoteSchema, { proposalId: id, voter: alice.address, option: VoteOption.NO }),
    ]);
    // A later vote by the same voter replaces the earlier one.
    await deliver(node, signers.alice, [
      anyOf(MsgVoteSchema, { proposalId: id, voter: alice.address, option: VoteOption.NO }),
    ]);
    await endVoting(node);
    const p = await proposal(node, id);
    expect(p.finalTallyResult).toMatchObject({
      yesCount: "600",
      noCount: "400",
      abstainCount: "0",
      noWithVetoCount: "0",
    });
    expect(p.status).toBe(ProposalStatus.PASSED);
    const params = await queryApp(
      node,
      "/sdk.bank.v1beta1.Query/Params",
      QueryParamsRequestSchema,
      {},
      QueryParamsResponseSchema,
    );
    expect(params.params?.defaultSendEnabled).toBe(false);
  }, 20_000);

  it("a passed proposal whose message fails ends FAILED with the reason, and writes nothing", async () => {
    const { node, signers } = await chain();
    const bobBefore = await balance(node, bob.address);
    // The gov account holds only deposits, refunded before the messages run: paying bob must fail.
    const id = await propose(node, signers.val, "1000", true);
    await deliver(node, signers.val, [
      anyOf(MsgVoteSchema, { proposalId: id, voter: val.address, option: VoteOption.YES }),
    ]);
    await endVoting(node);
    const p = await proposal(node, id);
    expect(p.status).toBe(ProposalStatus.FAILED);
    expect(p.failedReason).toContain("insufficient funds");
    expect(await balance(node, bob.address)).toBe(bobBefore);
  }, 20_000);

  it("rejects below the threshold and below quorum, burns deposits on veto, refunds otherwise", async () => {
    const { node, signers } = await chain();
    const before = BigInt(await balance(node, bob.address));
    // Threshold: 400 yes (alice) vs 600 no (validator) -> rejected, deposit refunded to bob.
    const rejected = await propose(node, signers.bob);
    await deliver(node, signers.val, [
      anyOf(MsgVoteSchema, { proposalId: rejected, voter: val.address, option: VoteOption.NO }),
    ]);
    await deliver(node, signers.alice, [
      anyOf(MsgVoteSchema, { proposalId: rejected, voter: alice.address, option: VoteOption.YES }),
    ]);
    await endVoting(node);
    expect((await proposal(node, rejected)).status).toBe(ProposalStatus.REJECTED);
    // Quorum: nobody votes -> rejected (quorum not reached), deposit refunded (burn_vote_quorum is false).
    const quiet = await propose(node, signers.bob);
    await endVoting(node);
    expect((await proposal(node, quiet)).status).toBe(ProposalStatus.REJECTED);
    expect((await proposal(node, quiet)).finalTallyResult?.yesCount).toBe("0");
    // Veto: the validator's weighted vote puts 0.5 of its 600 on NO_WITH_VETO (300 of 1000 -> 0.3 < 0.334), alice
    // vetoes 400 more -> 700 of 1000 -> burned.
    const vetoed = await propose(node, signers.bob);
    await deliver(node, signers.val, [
      anyOf(MsgVoteWeightedSchema, {
        proposalId: vetoed,
        voter: val.address,
        options: [
          { option: VoteOption.YES, weight: "0.5" },
          { option: VoteOption.NO_WITH_VETO, weight: "0.5" },
        ],
      }),
    ]);
    await deliver(node, signers.alice, [
      anyOf(MsgVoteSchema, { proposalId: vetoed, voter: alice.address, option: VoteOption.NO_WITH_VETO }),
    ]);
    const vote = await queryApp(
      node,
      "/sdk.gov.v1.Query/Vote",
      QueryVoteRequestSchema,
      { proposalId: vetoed, voter: val.address },
      QueryVoteResponseSchema,
    );
    expect(vote.vote?.options.map((o) => [o.option, o.weight])).toEqual([
      [VoteOption.YES, "0.5"],
      [VoteOption.NO_WITH_VETO, "0.5"],
    ]);
    await endVoting(node);
    const v = await proposal(node, vetoed);
    expect(v.status).toBe(ProposalStatus.REJECTED);
    expect(v.finalTallyResult).toMatchObject({ yesCount: "300", noWithVetoCount: "700" });
    // Refunded twice, burned once: bob paid fees for 3 submissions plus one burned deposit of 1000.
    const after = BigInt(await balance(node, bob.address));
    expect(before - after).toBe(3n * 2000n + 1000n);
  }, 30_000);

  it("pages proposals by offset and by next_key, and refuses a key that is not one of its next_keys", async () => {
    const { node, signers } = await chain();
    for (let i = 0; i < 3; i++) await propose(node, signers.bob);
    const page = (pagination: object) =>
      queryApp(
        node,
        "/sdk.gov.v1.Query/Proposals",
        QueryProposalsRequestSchema,
        { pagination },
        QueryProposalsResponseSchema,
      );
    const first = await page({ limit: 2n });
    expect(first.proposals.map((p) => p.id)).toEqual([1n, 2n]);
    expect(first.pagination?.nextKey).toHaveLength(8);
    const second = await page({ key: first.pagination!.nextKey, limit: 2n });
    expect(second.proposals.map((p) => p.id)).toEqual([3n]);
    expect((await page({ offset: 1n, limit: 5n })).proposals.map((p) => p.id)).toEqual([2n, 3n]);
    await expect(page({ key: Uint8Array.of(3, 0xbe) })).rejects.toThrow(
      "invalid pagination key: expected the 8 bytes of a next_key, got 2",
    );
    await expect(page({ key: first.pagination!.nextKey, offset: 1n })).rejects.toThrow(
      /either offset or key/,
    );
  });

  it("drops a proposal whose deposit period ends short of the minimum; a later deposit can start the vote", async () => {
    const { node, signers } = await chain();
    const dropped = await propose(node, signers.bob, "10");
    expect((await proposal(node, dropped)).status).toBe(ProposalStatus.DEPOSIT_PERIOD);
    await endVoting(node);
    await expect(proposal(node, dropped)).rejects.toThrow(`proposal ${dropped} doesn't exist`);
    const topped = await propose(node, signers.bob, "10");
    const r = await deliver(node, signers.alice, [
      anyOf(MsgDepositSchema, {
        proposalId: topped,
        depositor: alice.address,
        amount: [{ denom: "stake", amount: "990" }],
      }),
    ]);
    expect(r.code, r.log).toBe(0);
    expect((await proposal(node, topped)).status).toBe(ProposalStatus.VOTING_PERIOD);
    await expect(
      queryApp(
        node,
        "/sdk.gov.v1.Query/Proposal",
        QueryProposalRequestSchema,
        { proposalId: 0n },
        QueryProposalResponseSchema,
      ),
    ).rejects.toThrow("proposal id can not be 0");
  }, 20_000);

  it("undelegating takes the delegator's voting power away at once, and pays out after the unbonding time", async () => {
    const { node, signers } = await chain();
    const held = BigInt(await balance(node, alice.address));
    const r = await deliver(node, signers.alice, [
      anyOf(MsgUndelegateSchema, {
        delegatorAddress: alice.address,
        validatorAddress: valoper,
        amount: { denom: "stake", amount: "400" },
      }),
    ]);
    expect(r.code, r.log).toBe(0);
    const id = await propose(node, signers.bob);
    await deliver(node, signers.alice, [
      anyOf(MsgVoteSchema, { proposalId: id, voter: alice.address, option: VoteOption.NO }),
    ]);
    await deliver(node, signers.val, [
      anyOf(MsgVoteSchema, { proposalId: id, voter: val.address, option: VoteOption.YES }),
    ]);
    await endVoting(node);
    expect((await proposal(node, id)).finalTallyResult).toMatchObject({ yesCount: "600", noCount: "0" });
    // Two fees paid since (undelegate, vote), and the 400 back after the second-long unbonding.
    expect(BigInt(await balance(node, alice.address))).toBe(held - 2n * 2000n + 400n);
  }, 20_000);
});
