import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { MsgMultiSendSchema, MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { PubKeySchema as Ed25519PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import {
  MsgDepositSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import {
  MsgCreateValidatorSchema,
  MsgDelegateSchema,
  MsgUndelegateSchema,
} from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { AuthInfoSchema, TxBodySchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { makeSignDoc, serializeSignDoc } from "@cosmjs/amino";
import { AminoTypes, createDefaultAminoConverters } from "@cosmjs/stargate";
import { describe, expect, it } from "vitest";
import { aminoSignBytes } from "../../../node/src/app/amino-sign-doc.js";
import { AminoEncoder } from "../../../node/src/app/amino-types.js";
import { GOV_ADDRESS } from "../helpers/gov-flow.js";
import { TEST_DEFINITION } from "../helpers/test-home.js";

const { types } = TEST_DEFINITION.assemble({ chainId: "amino-1", bech32Prefix: "sdk", minGasPrices: "" });
const amino = new AminoEncoder(types);

const ALICE = "sdk1qc57h0xjwpd9gsuf6p0pmv3vppzjaxqkrardj9";
const BOB = "sdk1auprr60pt9xylp0dhntjc27lpjyh9f2yzuvsx4";
const CAROL = "sdk1y3e92wwcckxrrakx9g7vtwvtw67qn4pc5cz4x8";
const VALOPER = "sdkvaloper17adtec2t6g3qfata46zpp3ejqmsq7p903lj7e7";

function pack<D extends DescMessage>(
  schema: D,
  init: MessageInitShape<D>,
  ns: "sdk" | "cosmos" = "sdk",
): Any {
  const name = ns === "cosmos" ? schema.typeName.replace(/^sdk\./, "cosmos.") : schema.typeName;
  return create(AnySchema, { typeUrl: `/${name}`, value: toBinary(schema, create(schema, init)) });
}

interface DocParts {
  messages: Any[];
  memo?: string;
  timeoutHeight?: bigint;
  fee?: { amount: { denom: string; amount: string }[]; gasLimit: bigint; payer?: string; granter?: string };
  accountNumber?: bigint;
  sequence?: bigint;
}

/** The text the node verifies an amino JSON signature against. */
function signText(p: DocParts): string {
  const body = create(TxBodySchema, {
    messages: p.messages,
    memo: p.memo ?? "",
    timeoutHeight: p.timeoutHeight,
  });
  const authInfo = create(AuthInfoSchema, {
    fee: p.fee ?? { amount: [{ denom: "stake", amount: "5000" }], gasLimit: 200000n },
  });
  const bytes = aminoSignBytes(amino, body, authInfo, {
    chainId: "ledger-1",
    accountNumber: p.accountNumber ?? 7n,
    sequence: p.sequence ?? 3n,
  });
  return new TextDecoder().decode(bytes);
}

describe("SIGN_MODE_LEGACY_AMINO_JSON sign bytes (the StdSignDoc a Ledger shows and signs)", () => {
  it("a bank send: sorted keys, no spaces, amounts as strings, <, > and & escaped as the SDK does", () => {
    const text = signText({
      messages: [
        pack(MsgSendSchema, {
          fromAddress: ALICE,
          toAddress: CAROL,
          amount: [{ denom: "stake", amount: "1000" }],
        }),
      ],
      memo: "Ledger <test> & more",
    });
    // Written by hand, as a Ledger device would display the document.
    expect(text).toBe(
      `{"account_number":"7","chain_id":"ledger-1","fee":{"amount":[{"amount":"5000","denom":"stake"}],"gas":"200000"},"memo":"Ledger \\u003ctest\\u003e \\u0026 more","msgs":[{"type":"cosmos-sdk/MsgSend","value":{"amount":[{"amount":"1000","denom":"stake"}],"from_address":"${ALICE}","to_address":"${CAROL}"}}],"sequence":"3"}`,
    );
  });

  it("a v1 proposal holding MsgSoftwareUpgrade: nested amino names, the plan's zero time, payer and timeout height", () => {
    const upgrade = pack(MsgSoftwareUpgradeSchema, {
      authority: GOV_ADDRESS,
      plan: { name: "v2", height: 100n, info: '{"binaries":{}}' },
    });
    const text = signText({
      messages: [
        pack(
          MsgSubmitProposalSchema,
          {
            messages: [upgrade],
            initialDeposit: [{ denom: "stake", amount: "10000000" }],
            proposer: ALICE,
            title: "Upgrade to v2",
            summary: "s",
          },
          "cosmos",
        ),
      ],
      fee: { amount: [], gasLimit: 300000n, payer: BOB },
      timeoutHeight: 50n,
      accountNumber: 0n,
      sequence: 1n,
    });
    expect(text).toBe(
      `{"account_number":"0","chain_id":"ledger-1","fee":{"amount":[],"gas":"300000","payer":"${BOB}"},"memo":"","msgs":[{"type":"cosmos-sdk/v1/MsgSubmitProposal","value":{"initial_deposit":[{"amount":"10000000","denom":"stake"}],"messages":[{"type":"cosmos-sdk/MsgSoftwareUpgrade","value":{"authority":"${GOV_ADDRESS}","plan":{"height":"100","info":"{\\"binaries\\":{}}","name":"v2","time":"0001-01-01T00:00:00Z"}}}],"proposer":"${ALICE}","summary":"s","title":"Upgrade to v2"}}],"sequence":"1","timeout_height":"50"}`,
    );
  });

  it("gov v1 vote, weighted vote, deposit and cancel-upgrade: enums as numbers, ids as strings, empty coins as []", () => {
    const msgs = (m: Any) => JSON.parse(signText({ messages: [m] })).msgs[0];
    expect(msgs(pack(MsgVoteSchema, { proposalId: 4n, voter: ALICE, option: VoteOption.YES }))).toEqual({
      type: "cosmos-sdk/v1/MsgVote",
      value: { option: 1, proposal_id: "4", voter: ALICE },
    });
    expect(
      msgs(
        pack(MsgVoteWeightedSchema, {
          proposalId: 4n,
          voter: ALICE,
          options: [
            { option: VoteOption.YES, weight: "0.700000000000000000" },
            { option: VoteOption.NO, weight: "0.300000000000000000" },
          ],
        }),
      ),
    ).toEqual({
      type: "cosmos-sdk/v1/MsgVoteWeighted",
      value: {
        options: [
          { option: 1, weight: "0.700000000000000000" },
          { option: 3, weight: "0.300000000000000000" },
        ],
        proposal_id: "4",
        voter: ALICE,
      },
    });
    expect(signText({ messages: [pack(MsgDepositSchema, { proposalId: 0n, depositor: ALICE })] })).toContain(
      `"msgs":[{"type":"cosmos-sdk/v1/MsgDeposit","value":{"amount":[],"depositor":"${ALICE}","proposal_id":"0"}}]`,
    );
    expect(msgs(pack(MsgCancelUpgradeSchema, { authority: GOV_ADDRESS }))).toEqual({
      type: "cosmos-sdk/MsgCancelUpgrade",
      value: { authority: GOV_ADDRESS },
    });
  });

  it("create-validator: tendermint/PubKeyEd25519, Dec rates with 18 decimals, empty description fields left out", () => {
    const key = new Uint8Array(32).fill(7);
    const text = signText({
      messages: [
        pack(MsgCreateValidatorSchema, {
          description: { moniker: "v", details: "" },
          commission: {
            rate: "100000000000000000",
            maxRate: "200000000000000000",
            maxChangeRate: "10000000000000000",
          },
          minSelfDelegation: "1",
          validatorAddress: VALOPER,
          pubkey: pack(Ed25519PubKeySchema, { key }),
          value: { denom: "stake", amount: "1000" },
        }),
      ],
    });
    expect(text).toContain(
      `{"type":"cosmos-sdk/MsgCreateValidator","value":{"commission":{"max_change_rate":"0.010000000000000000","max_rate":"0.200000000000000000","rate":"0.100000000000000000"},"description":{"moniker":"v"},"min_self_delegation":"1","pubkey":{"type":"tendermint/PubKeyEd25519","value":"${Buffer.from(key).toString("base64")}"},"validator_address":"${VALOPER}","value":{"amount":"1000","denom":"stake"}}}`,
    );
  });

  it("matches CosmJS's own sign doc byte for byte for bank and staking messages, in either namespace", () => {
    const cosmjs = new AminoTypes(createDefaultAminoConverters());
    const coin = { denom: "stake", amount: "25" };
    const cases: { typeUrl: string; value: object; ours: Any }[] = [
      {
        typeUrl: "/cosmos.bank.v1beta1.MsgSend",
        value: { fromAddress: ALICE, toAddress: BOB, amount: [coin] },
        ours: pack(MsgSendSchema, { fromAddress: ALICE, toAddress: BOB, amount: [coin] }, "cosmos"),
      },
      {
        typeUrl: "/cosmos.bank.v1beta1.MsgMultiSend",
        value: { inputs: [{ address: ALICE, coins: [coin] }], outputs: [{ address: CAROL, coins: [coin] }] },
        ours: pack(MsgMultiSendSchema, {
          inputs: [{ address: ALICE, coins: [coin] }],
          outputs: [{ address: CAROL, coins: [coin] }],
        }),
      },
      {
        typeUrl: "/cosmos.staking.v1beta1.MsgDelegate",
        value: { delegatorAddress: ALICE, validatorAddress: VALOPER, amount: coin },
        ours: pack(MsgDelegateSchema, { delegatorAddress: ALICE, validatorAddress: VALOPER, amount: coin }),
      },
      {
        typeUrl: "/cosmos.staking.v1beta1.MsgUndelegate",
        value: { delegatorAddress: ALICE, validatorAddress: VALOPER, amount: coin },
        ours: pack(MsgUndelegateSchema, { delegatorAddress: ALICE, validatorAddress: VALOPER, amount: coin }),
      },
    ];
    for (const c of cases) {
      const fee = { amount: [{ denom: "stake", amount: "5000" }], gas: "200000" };
      const theirs = serializeSignDoc(
        makeSignDoc([cosmjs.toAmino({ typeUrl: c.typeUrl, value: c.value })], fee, "ledger-1", "m&m", 7, 3),
      );
      expect(signText({ messages: [c.ours], memo: "m&m" }), c.typeUrl).toBe(new TextDecoder().decode(theirs));
    }
  });

  it("refuses a message nested in a proposal that carries a field the node does not know: amino JSON would not sign it", () => {
    const upgrade = pack(MsgSoftwareUpgradeSchema, {
      authority: GOV_ADDRESS,
      plan: { name: "v2", height: 100n },
    });
    // Field 111, varint 1: valid protobuf the node does not know, appended after signing by a stranger.
    const tampered = create(AnySchema, {
      typeUrl: upgrade.typeUrl,
      value: new Uint8Array([...upgrade.value, ((111 << 3) & 0x7f) | 0x80, 111 >> 4, 1]),
    });
    const proposal = (m: Any) =>
      pack(MsgSubmitProposalSchema, { messages: [m], proposer: ALICE, title: "t", summary: "s" });
    expect(signText({ messages: [proposal(upgrade)] })).toContain("cosmos-sdk/MsgSoftwareUpgrade");
    expect(() => signText({ messages: [proposal(tampered)] })).toThrow(
      /cosmos\.upgrade\.v1beta1\.MsgSoftwareUpgrade has fields this node does not know, which amino JSON cannot sign/,
    );
  });

  it("refuses a message with no amino encoding, naming it, and a body with extension options", () => {
    const account = pack(BaseAccountSchema, { address: ALICE });
    expect(() => signText({ messages: [account] })).toThrow(
      /message cosmos\.auth\.v1beta1\.BaseAccount has no amino JSON encoding \(SIGN_MODE_LEGACY_AMINO_JSON\)/,
    );
    const body = create(TxBodySchema, {
      messages: [pack(MsgSendSchema, { fromAddress: ALICE, toAddress: BOB })],
      nonCriticalExtensionOptions: [pack(MsgSendSchema, {})],
    });
    expect(() =>
      aminoSignBytes(amino, body, create(AuthInfoSchema), { chainId: "c", accountNumber: 0n, sequence: 0n }),
    ).toThrow(/SIGN_MODE_LEGACY_AMINO_JSON does not support protobuf extension options/);
  });
});
