import { create, type DescMessage, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { MsgMultiSendSchema, MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { QueryVotesRequestSchema } from "@chaind/proto/sdk/gov/v1/query_pb";
import {
  MsgDepositSchema,
  MsgExecLegacyContentSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { TextProposalSchema } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import * as legacy from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import {
  QueryDelegatorDelegationsRequestSchema,
  QueryValidatorsRequestSchema,
} from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import {
  MsgCreateValidatorSchema,
  MsgDelegateSchema,
  MsgUndelegateSchema,
} from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { moduleAddress } from "../../../node/src/crypto/address.js";
import { AppChain } from "../helpers/app-chain.js";
import { anyOf } from "../helpers/signed-tx.js";
import { type TestAccount, testAccount } from "../helpers/test-home.js";

// alice attacks; bob is the victim every message names; val runs the chain's validator.
const alice = testAccount("alice");
const bob = testAccount("bob");
const val = testAccount("val");
const accounts = new AddressCodec("sdk");
const valopers = new AddressCodec("sdkvaloper");
const valoper = (a: TestAccount) => valopers.toString(accounts.fromString(a.address));
const gov = accounts.toString(moduleAddress("gov"));
const bondedPool = accounts.toString(moduleAddress("bonded_tokens_pool"));
const feeCollector = accounts.toString(moduleAddress("fee_collector"));
const stake = (amount: string) => [{ denom: "stake", amount }];
const consensusKey = (seed: number) => anyOf(PubKeySchema, { key: new Uint8Array(32).fill(seed) }) as Any;

/**
 * Every message a tx can carry names the account it debits or acts for in its `sdk.msg.v1.signer` field; that
 * account must sign. Each case below is a message naming bob, signed by alice alone.
 */
describe("every address a message acts for must have signed", () => {
  let chain: AppChain;

  beforeAll(async () => {
    chain = await AppChain.open({
      accounts: [
        { account: alice, coins: "10000000stake" },
        { account: bob, coins: "50000000stake" },
      ],
      validator: { account: val, stake: 1_000_000n },
      govPeriodMs: 600_000,
      tuneApp: (c) => {
        c.minimumGasPrices = "0.025stake";
      },
    });
    // bob's own doings, which the attacks below try to undo or redo: a delegation and a proposal in voting.
    const proposal = anyOf(MsgSubmitProposalSchema, {
      messages: [upgradeMsg("v9")],
      initialDeposit: stake("1000"),
      proposer: bob.address,
      title: "t",
      summary: "s",
    });
    const setup = await chain.deliver([
      await signed(bob, [anyOf(MsgDelegateSchema, delegation(bob, "2000000"))]),
    ]);
    const setup2 = await chain.deliver([await signed(bob, [proposal])]);
    expect([...setup, ...setup2].map((r) => r.code)).toEqual([0, 0]);
  });
  afterAll(() => chain.close());

  function upgradeMsg(name: string): Any {
    return anyOf(MsgSoftwareUpgradeSchema, { authority: gov, plan: { name, height: 100_000n } });
  }
  function delegation(who: TestAccount, amount: string) {
    return { delegatorAddress: who.address, validatorAddress: valoper(val), amount: stake(amount)[0] };
  }

  /** Signed by `who` alone, at its current sequence, with a fee of 0.025stake per gas. */
  async function signed(who: TestAccount, messages: Any[], gas = 400_000n): Promise<Uint8Array> {
    const { accountNumber, sequence } = await chain.account(who.address);
    return signTxDirect(
      { messages, fee: { amount: stake(String(gas / 40n)), gasLimit: gas } },
      [who.signer(accountNumber, sequence)],
      chain.chainId,
    );
  }

  /** What the attacks must leave alone: balances, bob's delegations, the validators, the votes. */
  async function snapshot() {
    const raw = async <D extends DescMessage>(path: string, schema: D, init: MessageInitShape<D>) =>
      Buffer.from((await chain.node.app.query(path, toBinary(schema, create(schema, init)))).value).toString(
        "hex",
      );
    return {
      bob: await chain.balance(bob.address),
      alice: await chain.balance(alice.address),
      bonded: await chain.balance(bondedPool),
      gov: await chain.balance(gov),
      bobSequence: (await chain.account(bob.address)).sequence,
      delegations: await raw(
        "/sdk.staking.v1beta1.Query/DelegatorDelegations",
        QueryDelegatorDelegationsRequestSchema,
        {
          delegatorAddr: bob.address,
        },
      ),
      validators: await raw("/sdk.staking.v1beta1.Query/Validators", QueryValidatorsRequestSchema, {}),
      votes: await raw("/sdk.gov.v1.Query/Votes", QueryVotesRequestSchema, { proposalId: 1n }),
    };
  }

  const cases: [string, () => Any][] = [
    [
      "bank send from bob",
      () =>
        anyOf(MsgSendSchema, { fromAddress: bob.address, toAddress: alice.address, amount: stake("1000") }),
    ],
    [
      "bank multi-send with bob as the input",
      () =>
        anyOf(MsgMultiSendSchema, {
          inputs: [{ address: bob.address, coins: stake("1000") }],
          outputs: [{ address: alice.address, coins: stake("1000") }],
        }),
    ],
    ["staking delegate from bob", () => anyOf(MsgDelegateSchema, delegation(bob, "1000"))],
    ["staking undelegate bob's stake", () => anyOf(MsgUndelegateSchema, delegation(bob, "1000"))],
    [
      "staking create-validator with bob's operator address",
      () =>
        anyOf(MsgCreateValidatorSchema, {
          description: { moniker: "bob's?" },
          commission: { rate: "0", maxRate: "0", maxChangeRate: "0" },
          minSelfDelegation: "1",
          validatorAddress: valoper(bob),
          pubkey: consensusKey(7),
          value: stake("1000")[0],
        }),
    ],
    [
      "gov submit-proposal with bob as proposer and depositor",
      () =>
        anyOf(MsgSubmitProposalSchema, {
          messages: [upgradeMsg("v10")],
          initialDeposit: stake("1000"),
          proposer: bob.address,
          title: "t",
          summary: "s",
        }),
    ],
    [
      "gov deposit from bob",
      () => anyOf(MsgDepositSchema, { proposalId: 1n, depositor: bob.address, amount: stake("1000") }),
    ],
    [
      "gov vote as bob",
      () => anyOf(MsgVoteSchema, { proposalId: 1n, voter: bob.address, option: VoteOption.NO }),
    ],
    [
      "gov v1beta1 submit-proposal with bob as proposer and depositor",
      () =>
        anyOf(legacy.MsgSubmitProposalSchema, {
          content: anyOf(TextProposalSchema, { title: "t", description: "d" }),
          initialDeposit: stake("1000"),
          proposer: bob.address,
        }),
    ],
    [
      "gov v1beta1 deposit from bob",
      () => anyOf(legacy.MsgDepositSchema, { proposalId: 1n, depositor: bob.address, amount: stake("1000") }),
    ],
    [
      "gov v1beta1 vote as bob",
      () => anyOf(legacy.MsgVoteSchema, { proposalId: 1n, voter: bob.address, option: VoteOption.NO }),
    ],
    [
      "gov v1beta1 weighted vote as bob",
      () =>
        anyOf(legacy.MsgVoteWeightedSchema, {
          proposalId: 1n,
          voter: bob.address,
          options: [{ option: VoteOption.NO, weight: "1000000000000000000" }],
        }),
    ],
  ];

  for (const [name, msg] of cases) {
    it(`refuses ${name} (CheckTx and delivery), and changes nothing`, async () => {
      const before = await snapshot();
      const aliceSequence = (await chain.account(alice.address)).sequence;
      const tx = await signed(alice, [msg()]);
      const check = await chain.check(tx);
      expect(check.code).toBe(8);
      expect(check.log).toContain(`pubKey does not match signer address ${bob.address} with signer index: 0`);
      // Alice's own message first, bob's second: two signers, one signature.
      const mixed = await signed(alice, [
        anyOf(MsgSendSchema, { fromAddress: alice.address, toAddress: alice.address, amount: stake("1") }),
        msg(),
      ]);
      expect((await chain.check(mixed)).log).toBe("wrong number of signers; expected 2, got 1: unauthorized");
      const results = await chain.deliver([tx, mixed]);
      expect(results.map((r) => r.code)).toEqual([8, 4]);
      expect(await snapshot()).toEqual(before);
      expect((await chain.account(alice.address)).sequence).toBe(aliceSequence);
    });
  }

  it("refuses messages whose signer is the gov authority in a plain tx", async () => {
    const before = await snapshot();
    // A fee the gov account could pay from its deposits, so the ante reaches the signature checks.
    expect(before.gov).toBe(1000n);
    const legacyContent = anyOf(MsgExecLegacyContentSchema, {
      content: anyOf(TextProposalSchema, { title: "t", description: "d" }),
      authority: gov,
    });
    for (const msg of [upgradeMsg("v11"), legacyContent]) {
      const tx = await signed(alice, [msg], 40_000n);
      const check = await chain.check(tx);
      expect(check.code).toBe(8);
      expect(check.log).toContain(`pubKey does not match signer address ${gov} with signer index: 0`);
      expect((await chain.deliver([tx]))[0].code).toBe(8);
    }
    expect(await snapshot()).toEqual(before);
  });

  it("create-validator debits the operator's own account, never the deprecated delegator_address", async () => {
    const before = await snapshot();
    const tx = await signed(alice, [
      anyOf(MsgCreateValidatorSchema, {
        description: { moniker: "alice" },
        commission: { rate: "0", maxRate: "0", maxChangeRate: "0" },
        minSelfDelegation: "1",
        delegatorAddress: bob.address,
        validatorAddress: valoper(alice),
        pubkey: consensusKey(9),
        value: stake("300000")[0],
      }),
    ]);
    const [result] = await chain.deliver([tx]);
    expect(result.code, result.log).toBe(0);
    expect(await chain.balance(bob.address)).toBe(before.bob);
    expect(await chain.balance(alice.address)).toBe(before.alice - 300_000n - 10_000n);
    expect(await chain.balance(bondedPool)).toBe(before.bonded + 300_000n);
  });

  it("refuses sends to a module account spelled in upper case, as in lower case", async () => {
    for (const target of [bondedPool, feeCollector, gov]) {
      const before = await chain.balance(target);
      const txs = [
        await signed(alice, [
          anyOf(MsgSendSchema, {
            fromAddress: alice.address,
            toAddress: target.toUpperCase(),
            amount: stake("5"),
          }),
        ]),
      ];
      const [sent] = await chain.deliver(txs);
      expect(sent.code).toBe(4);
      expect(sent.log).toBe(`${target.toUpperCase()} is not allowed to receive funds: unauthorized`);
      const [multi] = await chain.deliver([
        await signed(alice, [
          anyOf(MsgMultiSendSchema, {
            inputs: [{ address: alice.address, coins: stake("5") }],
            outputs: [{ address: target.toUpperCase(), coins: stake("5") }],
          }),
        ]),
      ]);
      expect(multi.code).toBe(4);
      // The fee collector receives the fees of these very txs; nothing else arrives.
      const fees = target === feeCollector ? 20_000n : 0n;
      expect(await chain.balance(target)).toBe(before + fees);
    }
  });

  it("refuses a tx whose messages name no signer (a multi-send without inputs), in CheckTx and simulation", async () => {
    const { accountNumber, sequence } = await chain.account(alice.address);
    const empty = anyOf(MsgMultiSendSchema, { inputs: [], outputs: [] });
    const tx = await signTxDirect(
      { messages: [empty], fee: { amount: stake("10000"), gasLimit: 400_000n } },
      [alice.signer(accountNumber, sequence)],
      chain.chainId,
    );
    const checked = await chain.node.app.checkTx(tx);
    expect(checked).toMatchObject({ code: 15, codespace: "sdk" });
    expect(checked.log).toContain("tx has no signers");
    const { result } = await chain.node.app.simulate(tx);
    expect(result).toMatchObject({ code: 15 });
    expect((await chain.account(alice.address)).sequence).toBe(sequence);
  });
});
