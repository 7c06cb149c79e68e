import { create, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import {
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { TextProposalSchema } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import { MsgSubmitProposalSchema as LegacySubmitSchema } from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { AppChain } from "../helpers/app-chain.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";
import { anyOf } from "../helpers/signed-tx.js";
import { type TestAccount, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const validator = testAccount("validator");
const GAS = 4_000_000n;
/** The testnet price (0.0001stake a gas unit). */
const FEE = GAS / 10_000n;

const a = (n: number) => "a".repeat(n);
/** `n` two-byte characters: bounds count UTF-8 bytes, as Go's len() does, not characters. */
const e = (n: number) => "é".repeat(n);

const submitV1 = (text: { title?: string; summary?: string; metadata?: string }) =>
  anyOf(MsgSubmitProposalSchema, {
    messages: [
      anyOf(MsgSendSchema, {
        fromAddress: GOV_ADDRESS,
        toAddress: alice.address,
        amount: [{ denom: "stake", amount: "1" }],
      }),
    ],
    initialDeposit: [{ denom: "stake", amount: "1000" }],
    proposer: alice.address,
    title: text.title ?? "t",
    summary: text.summary ?? "s",
    metadata: text.metadata ?? "",
  });

const submitLegacy = (title: string, description: string) =>
  anyOf(LegacySubmitSchema, {
    content: create(AnySchema, {
      typeUrl: `/${TextProposalSchema.typeName}`,
      value: toBinary(TextProposalSchema, create(TextProposalSchema, { title, description })),
    }),
    initialDeposit: [{ denom: "stake", amount: "1000" }],
    proposer: alice.address,
  });

const voteV1 = (metadata: string) =>
  anyOf(MsgVoteSchema, { proposalId: 1n, voter: alice.address, option: VoteOption.YES, metadata });

const voteWeightedV1 = (metadata: string) =>
  anyOf(MsgVoteWeightedSchema, {
    proposalId: 1n,
    voter: alice.address,
    options: [{ option: VoteOption.YES, weight: "1.000000000000000000" }],
    metadata,
  });

interface Bound {
  name: string;
  atLimit: Any;
  over: Any;
  codespace: string;
  code: number;
  log: string;
}

// Issue 29, point 6: gov's text fields bounded as Cosmos SDK 0.50 bounds them (x/gov keeper config:
// MaxMetadataLen 255 for metadata and, with metadata's error, for a v1 title; 40 x 255 for a summary; a legacy
// TextProposal's title 140 and description 10,000), with its errors, and refused by CheckTx: before, CheckTx let
// every one through, a block then refused only metadata (by characters, not bytes) and legacy content after
// taking the fee, and titles, summaries and multi-byte metadata were stored whatever their size.
const BOUNDS: Bound[] = [
  {
    name: "v1 proposal metadata (255 bytes)",
    atLimit: submitV1({ metadata: a(255) }),
    over: submitV1({ metadata: e(128) }),
    codespace: "gov",
    code: 15,
    log: "got metadata with length 256: metadata too long",
  },
  {
    name: "v1 proposal title (255 bytes, bounded as metadata)",
    atLimit: submitV1({ title: `${a(253)}é` }),
    over: submitV1({ title: a(256) }),
    codespace: "gov",
    code: 15,
    log: "got metadata with length 256: metadata too long",
  },
  {
    name: "v1 proposal summary (10,200 bytes)",
    atLimit: submitV1({ summary: a(10_200) }),
    over: submitV1({ summary: `${a(10_199)}é` }),
    codespace: "gov",
    code: 22,
    log: "got summary with length 10201: summary too long",
  },
  {
    name: "vote metadata (255 bytes)",
    atLimit: voteV1(a(255)),
    over: voteV1(a(256)),
    codespace: "gov",
    code: 15,
    log: "got metadata with length 256: metadata too long",
  },
  {
    name: "weighted vote metadata (255 bytes)",
    atLimit: voteWeightedV1(`${a(253)}é`),
    over: voteWeightedV1(`${a(254)}é`),
    codespace: "gov",
    code: 15,
    log: "got metadata with length 256: metadata too long",
  },
  {
    name: "v1beta1 TextProposal title (140 bytes)",
    atLimit: submitLegacy(a(140), "d"),
    over: submitLegacy(a(141), "d"),
    codespace: "gov",
    code: 5,
    log: "proposal title is longer than max length of 140: invalid proposal content",
  },
  {
    name: "v1beta1 TextProposal description (10,000 bytes)",
    atLimit: submitLegacy("t", a(10_000)),
    over: submitLegacy("t", `${a(9_999)}é`),
    codespace: "gov",
    code: 5,
    log: "proposal description is longer than max length of 10000: invalid proposal content",
  },
];

describe("gov text bounds (Cosmos SDK 0.50's): at the limit accepted, one byte over refused by CheckTx and blocks alike", () => {
  let chain: AppChain;

  async function signed(account: TestAccount, msg: Any): Promise<Uint8Array> {
    const { accountNumber, sequence } = await chain.account(account.address);
    return signTxDirect(
      { messages: [msg], fee: { amount: [{ denom: "stake", amount: String(FEE) }], gasLimit: GAS } },
      [account.signer(accountNumber, sequence)],
      chain.chainId,
    );
  }

  beforeAll(async () => {
    chain = await AppChain.open({
      accounts: [{ account: alice, coins: "100000000stake" }],
      validator: { account: validator, stake: 1_000_000n },
      govPeriodMs: 600_000,
    });
    // Proposal 1, in its voting period (the test genesis' minimum deposit is 1000stake), for the votes.
    const [r] = await chain.deliver([await signed(alice, submitV1({}))]);
    expect(r.code, r.log).toBe(0);
  });
  afterAll(async () => {
    await chain.close();
  });

  for (const b of BOUNDS) {
    it(`${b.name}: at the limit through CheckTx and a block; over it refused by both, with no fee taken`, async () => {
      const ok = await signed(alice, b.atLimit);
      const checked = await chain.check(ok);
      expect(checked.code, checked.log).toBe(0);
      const [delivered] = await chain.deliver([ok]);
      expect(delivered.code, delivered.log).toBe(0);

      const over = await signed(alice, b.over);
      const balance = await chain.balance(alice.address);
      const { sequence } = await chain.account(alice.address);
      const refused = await chain.check(over);
      // A proposer that puts it in a block anyway gets the same answer, and the sender pays nothing for it.
      const [inBlock] = await chain.deliver([over]);
      const want = { codespace: b.codespace, code: b.code, log: b.log };
      expect({ codespace: refused.codespace, code: refused.code, log: refused.log }).toEqual(want);
      expect({ codespace: inBlock.codespace, code: inBlock.code, log: inBlock.log }).toEqual(want);
      expect(await chain.balance(alice.address)).toBe(balance);
      expect((await chain.account(alice.address)).sequence).toBe(sequence);
    });
  }

  it("an empty v1 title or summary is refused as Cosmos SDK 0.50 refuses it (sdk code 18)", async () => {
    for (const [text, log] of [
      [{ title: "" }, "proposal title cannot be empty: invalid request"],
      [{ summary: "" }, "proposal summary cannot be empty: invalid request"],
    ] as const) {
      const r = await chain.check(await signed(alice, submitV1(text)));
      expect({ codespace: r.codespace, code: r.code, log: r.log }).toEqual({
        codespace: "sdk",
        code: 18,
        log,
      });
    }
  });
});
