import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import * as v1q from "@chaind/proto/sdk/gov/v1/query_pb";
import { ProposalStatus, TextProposalSchema, VoteOption } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import { DirectSecp256k1HdWallet, makeCosmoshubPath } from "@cosmjs/proto-signing";
import {
  type GovExtension,
  QueryClient,
  SigningStargateClient,
  type StdFee,
  setupGovExtension,
} from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeProcess } from "../helpers/chaind-process.js";
import { makeTestHome, type TestAccount } from "../helpers/test-home.js";

// The BIP39 test vector mnemonic: well-known keys (accounts 0 and 1), funded in genesis.
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const FEE: StdFee = { amount: [{ denom: "stake", amount: "5000" }], gas: "400000" };
const STAKE = 700_000n;
/** Our enum's number as CosmJS's enum (the same wire values). */
const status = (s: ProposalStatus) => s as number as Parameters<GovExtension["gov"]["proposals"]>[0];

describe("stock CosmJS and gov v1beta1", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let comet: Comet38Client;
  let queries: QueryClient & GovExtension;
  let client: SigningStargateClient;
  let validator: string;
  let bob: string;
  let id: bigint;

  beforeAll(async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, {
      prefix: "sdk",
      hdPaths: [makeCosmoshubPath(0), makeCosmoshubPath(1)],
    });
    [{ address: validator }, { address: bob }] = await wallet.getAccounts();
    home = makeTestHome({
      chainId: "cosmjs-gov-1",
      accounts: [
        { account: { address: validator } as TestAccount, coins: "50000000stake" },
        { account: { address: bob } as TestAccount, coins: "50000000stake" },
      ],
      validator: { account: { address: validator } as TestAccount, stake: STAKE },
      // Long periods: the proposal stays open while the test looks at it.
      govPeriodMs: 600_000,
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 200;
      },
    });
    node = new NodeProcess(home.home);
    const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2/);
    comet = await Comet38Client.connect(rpc);
    queries = QueryClient.withExtensions(comet, setupGovExtension);
    client = await SigningStargateClient.connectWithSigner(rpc, wallet);
  });
  afterAll(async () => {
    client?.disconnect();
    comet?.disconnect();
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  it("reads the params through setupGovExtension", async () => {
    const voting = await queries.gov.params("voting");
    expect(voting.votingParams.votingPeriod.seconds).toBe(600n);
    const deposit = await queries.gov.params("deposit");
    expect(deposit.depositParams.minDeposit).toEqual([{ denom: "stake", amount: "1000" }]);
    const tally = await queries.gov.params("tallying");
    // LegacyDec bytes: the digits of the decimal scaled by 10^18.
    expect(new TextDecoder().decode(tally.tallyParams.quorum)).toBe("334000000000000000");
    expect(new TextDecoder().decode(tally.tallyParams.threshold)).toBe("500000000000000000");
  });

  it("signs and broadcasts a v1beta1 MsgSubmitProposal with a TextProposal and a MsgDeposit", async () => {
    const content = {
      typeUrl: "/cosmos.gov.v1beta1.TextProposal",
      value: toBinary(
        TextProposalSchema,
        create(TextProposalSchema, { title: "Signal", description: "From CosmJS" }),
      ),
    };
    const submitted = await client.signAndBroadcast(
      validator,
      [
        {
          typeUrl: "/cosmos.gov.v1beta1.MsgSubmitProposal",
          value: { content, initialDeposit: [{ denom: "stake", amount: "400" }], proposer: validator },
        },
      ],
      FEE,
    );
    expect(submitted.code, submitted.rawLog).toBe(0);
    const attr = submitted.events
      .find((e) => e.type === "submit_proposal")
      ?.attributes.find((a) => a.key === "proposal_id");
    id = BigInt(attr!.value);

    const deposited = await client.signAndBroadcast(
      bob,
      [
        {
          typeUrl: "/cosmos.gov.v1beta1.MsgDeposit",
          value: { proposalId: id, depositor: bob, amount: [{ denom: "stake", amount: "600" }] },
        },
      ],
      FEE,
    );
    expect(deposited.code, deposited.rawLog).toBe(0);

    const { proposal } = await queries.gov.proposal(id.toString());
    expect(proposal.proposalId).toBe(id);
    expect(proposal.status).toBe(ProposalStatus.VOTING_PERIOD);
    expect(proposal.content?.typeUrl).toBe("/cosmos.gov.v1beta1.TextProposal");
    expect(fromBinary(TextProposalSchema, proposal.content!.value)).toMatchObject({
      title: "Signal",
      description: "From CosmJS",
    });
    expect(proposal.totalDeposit).toEqual([{ denom: "stake", amount: "1000" }]);
    const voting = await queries.gov.proposals(status(ProposalStatus.VOTING_PERIOD), "", "");
    expect(voting.proposals.map((p) => p.proposalId)).toContain(id);
    const byBob = await queries.gov.proposals(status(ProposalStatus.UNSPECIFIED), bob, "");
    expect(byBob.proposals.map((p) => p.proposalId)).toEqual([id]);
    const deposits = await queries.gov.deposits(id.toString());
    expect(deposits.deposits.map((d) => d.depositor).sort()).toEqual([validator, bob].sort());
    const mine = await queries.gov.deposit(id.toString(), bob);
    expect(mine.deposit.amount).toEqual([{ denom: "stake", amount: "600" }]);
  });

  it("signs and broadcasts a v1beta1 MsgVote, seen through v1 and v1beta1 queries and the tally", async () => {
    const voted = await client.signAndBroadcast(
      validator,
      [
        {
          typeUrl: "/cosmos.gov.v1beta1.MsgVote",
          value: { proposalId: id, voter: validator, option: VoteOption.YES },
        },
      ],
      FEE,
    );
    expect(voted.code, voted.rawLog).toBe(0);

    const { vote } = await queries.gov.vote(id.toString(), validator);
    expect(vote.voter).toBe(validator);
    expect(vote.options).toEqual([{ option: VoteOption.YES, weight: "1000000000000000000" }]);
    const { votes } = await queries.gov.votes(id.toString());
    expect(votes.map((v) => v.voter)).toEqual([validator]);

    // The same vote through gov v1, over the same RPC.
    const v1 = fromBinary(
      v1q.QueryVoteResponseSchema,
      (
        await queries.queryAbci(
          "/cosmos.gov.v1.Query/Vote",
          toBinary(
            v1q.QueryVoteRequestSchema,
            create(v1q.QueryVoteRequestSchema, { proposalId: id, voter: validator }),
          ),
        )
      ).value,
    );
    expect(v1.vote?.options.map((o) => [o.option, o.weight])).toEqual([
      [VoteOption.YES, "1.000000000000000000"],
    ]);

    const { tally } = await queries.gov.tally(id.toString());
    expect(tally).toEqual({ yes: STAKE.toString(), abstain: "0", no: "0", noWithVeto: "0" });
  });

  it("refuses a v1beta1 vote signed by an account other than its voter", async () => {
    await expect(
      client.signAndBroadcast(
        bob,
        [
          {
            typeUrl: "/cosmos.gov.v1beta1.MsgVote",
            value: { proposalId: id, voter: validator, option: VoteOption.NO_WITH_VETO },
          },
        ],
        FEE,
      ),
    ).rejects.toThrow(`pubKey does not match signer address ${validator}`);
    const { vote } = await queries.gov.vote(id.toString(), validator);
    expect(vote.options.map((o) => o.option)).toEqual([VoteOption.YES]);
  });
});
