import { QueryProposalRequestSchema, QueryProposalResponseSchema } from "@chaind/proto/sdk/gov/v1/query_pb";
import { MsgSubmitProposalSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { AppChain } from "../helpers/app-chain.js";
import { queryApp } from "../helpers/gov-flow.js";
import { anyOf } from "../helpers/signed-tx.js";
import { testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const validator = testAccount("validator");
const GAS = 4_000_000n;
const FEE = GAS / 10_000n;

const textProposal = (metadata: string, title = "Signal", summary = "Do we agree?") =>
  anyOf(MsgSubmitProposalSchema, {
    messages: [],
    initialDeposit: [{ denom: "stake", amount: "1000" }],
    proposer: alice.address,
    title,
    summary,
    metadata,
  });

// Issue 34, point 4: a gov v1 proposal without messages but with metadata (a text proposal, as explorers and
// wallets submit them) was refused in the block with "no messages proposed" after CheckTx let it through, so the
// fee was taken for nothing. Cosmos SDK 0.50 refuses only a proposal with neither messages nor metadata, and JSON
// metadata whose title or summary differ from the proposal's.
describe("gov v1 text proposals (messages or metadata, as Cosmos SDK 0.50)", () => {
  let chain: AppChain;

  async function signed(msg: ReturnType<typeof textProposal>): Promise<Uint8Array> {
    const { accountNumber, sequence } = await chain.account(alice.address);
    return signTxDirect(
      { messages: [msg], fee: { amount: [{ denom: "stake", amount: String(FEE) }], gasLimit: GAS } },
      [alice.signer(accountNumber, sequence)],
      chain.chainId,
    );
  }

  beforeAll(async () => {
    chain = await AppChain.open({
      accounts: [{ account: alice, coins: "100000000stake" }],
      validator: { account: validator, stake: 1_000_000n },
      govPeriodMs: 600_000,
    });
  });
  afterAll(async () => {
    await chain.close();
  });

  it("a proposal with metadata and no messages passes CheckTx and the block, and is stored with no messages", async () => {
    for (const metadata of [
      "ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi",
      JSON.stringify({ title: "Signal", summary: "Do we agree?", details: "long text" }),
    ]) {
      const tx = await signed(textProposal(metadata));
      const checked = await chain.check(tx);
      expect(checked.code, checked.log).toBe(0);
      const block = await chain.block([tx]);
      const [r] = block.txResults;
      expect(r.code, r.log).toBe(0);
      const id = BigInt(
        r.events.find((e) => e.type === "submit_proposal")!.attributes.find((a) => a.key === "proposal_id")!
          .value,
      );
      const { proposal } = await queryApp(
        chain.node,
        "/sdk.gov.v1.Query/Proposal",
        QueryProposalRequestSchema,
        { proposalId: id },
        QueryProposalResponseSchema,
      );
      expect(proposal?.messages).toEqual([]);
      expect(proposal?.metadata).toBe(metadata);
      expect(proposal?.title).toBe("Signal");
    }
  });

  const refusals = [
    {
      name: "neither messages nor metadata",
      msg: textProposal(""),
      want: {
        codespace: "gov",
        code: 11,
        log: "either metadata or Msgs length must be non-nil: no messages proposed",
      },
    },
    {
      name: "JSON metadata with another title",
      msg: textProposal(JSON.stringify({ title: "Other", summary: "Do we agree?" })),
      want: {
        codespace: "gov",
        code: 5,
        log: "metadata title 'Other' must equal proposal title 'Signal': invalid proposal content",
      },
    },
    {
      name: "JSON metadata with another summary",
      msg: textProposal(JSON.stringify({ title: "Signal", summary: "No" })),
      want: {
        codespace: "gov",
        code: 5,
        log: "metadata summary 'No' must equal proposal summary 'Do we agree?': invalid proposal content",
      },
    },
  ];
  for (const { name, msg, want } of refusals) {
    it(`${name}: refused alike by CheckTx and by a block, with no fee taken`, async () => {
      const tx = await signed(msg);
      const balance = await chain.balance(alice.address);
      const { sequence } = await chain.account(alice.address);
      const checked = await chain.check(tx);
      expect({ codespace: checked.codespace, code: checked.code, log: checked.log }).toEqual(want);
      const [inBlock] = await chain.deliver([tx]);
      expect({ codespace: inBlock.codespace, code: inBlock.code, log: inBlock.log }).toEqual(want);
      expect(await chain.balance(alice.address)).toBe(balance);
      expect((await chain.account(alice.address)).sequence).toBe(sequence);
    });
  }
});
