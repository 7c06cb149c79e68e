import { create, toBinary } from "@bufbuild/protobuf";
import { SimulateRequestSchema } from "@chaind/proto/sdk/tx/v1beta1/service_pb";
import { TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import {
  DirectSecp256k1Wallet,
  type EncodeObject,
  encodePubkey,
  makeAuthInfoBytes,
  makeSignDoc,
  Registry,
} from "@cosmjs/proto-signing";
import { defaultRegistryTypes, SigningStargateClient, type StdFee } from "@cosmjs/stargate";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AppChain } from "../helpers/app-chain.js";
import { testAccount } from "../helpers/test-home.js";

// alice signs messages; bob is the fee payer (or the victim named as one); carol only receives.
const alice = testAccount("alice");
const bob = testAccount("bob");
const carol = testAccount("carol");
const BOB_FUNDS = 50_000_000n;
// Realistic fees, above the 0.025stake per gas a node may require: 200000 gas for 5000stake.
const GAS = "200000";
const FEE = 5000n;
const registry = new Registry(defaultRegistryTypes);

const send = (from: string, to: string, amount: string): EncodeObject => ({
  typeUrl: "/cosmos.bank.v1beta1.MsgSend",
  value: { fromAddress: from, toAddress: to, amount: [{ denom: "stake", amount }] },
});
const fee = (amount: bigint, extra: Partial<StdFee> = {}): StdFee => ({
  amount: [{ denom: "stake", amount: String(amount) }],
  gas: GAS,
  ...extra,
});
const wallet = (who: typeof alice) => DirectSecp256k1Wallet.fromKey(who.priv, "sdk");
const pubkeyAny = (who: typeof alice) =>
  encodePubkey({ type: "tendermint/PubKeySecp256k1", value: Buffer.from(who.pub).toString("base64") });
const txBytes = (raw: { bodyBytes: Uint8Array; authInfoBytes: Uint8Array; signatures: Uint8Array[] }) =>
  toBinary(TxRawSchema, create(TxRawSchema, raw));

describe("the fee payer must sign (Cosmos' GetSigners: message signers, then the fee payer)", () => {
  let chain: AppChain;
  beforeEach(async () => {
    chain = await AppChain.open({
      accounts: [
        { account: alice, coins: "10000000stake" },
        { account: bob, coins: `${BOB_FUNDS}stake` },
      ],
      tuneApp: (c) => {
        c.minimumGasPrices = "0.025stake";
      },
    });
  });
  afterEach(() => chain.close());

  /** Stock CosmJS signs as `who` alone, with its account number and sequence from the chain. */
  async function cosmjsSigned(who: typeof alice, msgs: EncodeObject[], stdFee: StdFee): Promise<Uint8Array> {
    const { accountNumber, sequence } = await chain.account(who.address);
    const client = await SigningStargateClient.offline(await wallet(who));
    const raw = await client.sign(who.address, msgs, stdFee, "", {
      accountNumber: BigInt(accountNumber),
      sequence: Number(sequence),
      chainId: chain.chainId,
    });
    return txBytes(raw);
  }

  /** A tx co-signed with CosmJS's building blocks: one signer info and one signature per signer, in order. */
  async function coSigned(
    signers: (typeof alice)[],
    msgs: EncodeObject[],
    stdFee: StdFee,
  ): Promise<Uint8Array> {
    const accounts = await Promise.all(signers.map((s) => chain.account(s.address)));
    const bodyBytes = registry.encodeTxBody({ messages: msgs, memo: "" });
    const authInfoBytes = makeAuthInfoBytes(
      signers.map((s, i) => ({ pubkey: pubkeyAny(s), sequence: accounts[i].sequence })),
      stdFee.amount,
      Number(stdFee.gas),
      stdFee.granter,
      stdFee.payer,
    );
    const signatures: Uint8Array[] = [];
    for (const [i, s] of signers.entries()) {
      const doc = makeSignDoc(bodyBytes, authInfoBytes, chain.chainId, Number(accounts[i].accountNumber));
      const { signature } = await (await wallet(s)).signDirect(s.address, doc);
      signatures.push(Buffer.from(signature.signature, "base64"));
    }
    return txBytes({ bodyBytes, authInfoBytes, signatures });
  }

  async function expectNothingMoved(aliceSequence: bigint) {
    expect(await chain.balance(bob.address)).toBe(BOB_FUNDS);
    expect(await chain.balance(alice.address)).toBe(10_000_000n);
    expect((await chain.account(alice.address)).sequence).toBe(aliceSequence);
  }

  it("refuses the reviewer's attack: a self-send signed by alice alone with fee.payer = bob", async () => {
    const attack = await cosmjsSigned(
      alice,
      [send(alice.address, alice.address, "1")],
      fee(BOB_FUNDS, { payer: bob.address }),
    );
    const check = await chain.check(attack);
    expect(check.code).toBe(4);
    expect(check.codespace).toBe("sdk");
    expect(check.log).toBe("wrong number of signers; expected 2, got 1: unauthorized");

    // A proposer that puts it in a block anyway: delivery refuses it too and no fee is taken from anyone.
    const [delivered] = await chain.deliver([attack]);
    expect(delivered.code).toBe(4);
    expect(delivered.log).toContain("wrong number of signers; expected 2, got 1");
    await expectNothingMoved(0n);
    await chain.deliver([]);
    await chain.deliver([]);
    await expectNothingMoved(0n);
  });

  it("refuses a payer slot that alice fills with her own key or signs in bob's name", async () => {
    const msgs = [send(alice.address, alice.address, "1")];
    const stdFee = fee(BOB_FUNDS, { payer: bob.address });
    const bodyBytes = registry.encodeTxBody({ messages: msgs, memo: "" });
    const aliceAcc = await chain.account(alice.address);
    const bobAcc = await chain.account(bob.address);
    const signAsAlice = async (authInfoBytes: Uint8Array, accountNumber: bigint) =>
      Buffer.from(
        (
          await (
            await wallet(alice)
          ).signDirect(
            alice.address,
            makeSignDoc(bodyBytes, authInfoBytes, chain.chainId, Number(accountNumber)),
          )
        ).signature.signature,
        "base64",
      );

    // Two signer infos, both with alice's key: her key is not bob's address.
    const ownKey = makeAuthInfoBytes(
      [
        { pubkey: pubkeyAny(alice), sequence: aliceAcc.sequence },
        { pubkey: pubkeyAny(alice), sequence: bobAcc.sequence },
      ],
      stdFee.amount,
      Number(GAS),
      undefined,
      bob.address,
    );
    const sig = await signAsAlice(ownKey, aliceAcc.accountNumber);
    const forged = txBytes({ bodyBytes, authInfoBytes: ownKey, signatures: [sig, sig] });
    const check = await chain.check(forged);
    expect(check.code).toBe(8);
    expect(check.log).toContain(`pubKey does not match signer address ${bob.address} with signer index: 1`);

    // bob's real public key in his slot, but the signature is alice's.
    const bobsKey = makeAuthInfoBytes(
      [
        { pubkey: pubkeyAny(alice), sequence: aliceAcc.sequence },
        { pubkey: pubkeyAny(bob), sequence: bobAcc.sequence },
      ],
      stdFee.amount,
      Number(GAS),
      undefined,
      bob.address,
    );
    const impersonated = txBytes({
      bodyBytes,
      authInfoBytes: bobsKey,
      signatures: [
        await signAsAlice(bobsKey, aliceAcc.accountNumber),
        await signAsAlice(bobsKey, bobAcc.accountNumber),
      ],
    });
    const check2 = await chain.check(impersonated);
    expect(check2.code).toBe(4);
    expect(check2.log).toMatch(/^signature verification failed/);

    const results = await chain.deliver([forged, impersonated]);
    expect(results.map((r) => r.code)).toEqual([8, 4]);
    await expectNothingMoved(0n);
  });

  it("charges a payer that co-signed, not the message signer, and advances both sequences", async () => {
    const tx = await coSigned(
      [alice, bob],
      [send(alice.address, carol.address, "7")],
      fee(FEE, { payer: bob.address }),
    );
    const check = await chain.check(tx);
    expect(check.code, check.log).toBe(0);
    const [result] = await chain.deliver([tx]);
    expect(result.code, result.log).toBe(0);
    expect(await chain.balance(carol.address)).toBe(7n);
    expect(await chain.balance(alice.address)).toBe(10_000_000n - 7n);
    expect(await chain.balance(bob.address)).toBe(BOB_FUNDS - FEE);
    expect((await chain.account(alice.address)).sequence).toBe(1n);
    expect((await chain.account(bob.address)).sequence).toBe(1n);
    const feeEvent = result.events.find(
      (e) => e.type === "tx" && e.attributes.some((a) => a.key === "fee_payer"),
    );
    expect(feeEvent?.attributes).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ key: "fee", value: `${FEE}stake` }),
        expect.objectContaining({ key: "fee_payer", value: bob.address }),
      ]),
    );

    // The signatures line up with the signers: swapped, neither verifies.
    const swapped = await coSigned(
      [bob, alice],
      [send(alice.address, carol.address, "7")],
      fee(FEE, { payer: bob.address }),
    );
    const bad = await chain.check(swapped);
    expect(bad.code).toBe(8);
    expect(bad.log).toContain(`pubKey does not match signer address ${alice.address} with signer index: 0`);
  });

  it("needs one signature when the payer is the message signer, however its address is spelled", async () => {
    const plain = await cosmjsSigned(
      alice,
      [send(alice.address, carol.address, "3")],
      fee(FEE, { payer: alice.address }),
    );
    expect((await chain.check(plain)).code).toBe(0);
    expect((await chain.deliver([plain]))[0].code).toBe(0);
    // bech32 also accepts the upper-case form: the same bytes, so the same signer, as Cosmos compares them.
    const upper = await cosmjsSigned(
      alice,
      [send(alice.address, carol.address, "4")],
      fee(FEE, { payer: alice.address.toUpperCase() }),
    );
    expect((await chain.check(upper)).code).toBe(0);
    const [result] = await chain.deliver([upper]);
    expect(result.code, result.log).toBe(0);
    expect(await chain.balance(alice.address)).toBe(10_000_000n - 7n - 2n * FEE);
    expect(await chain.balance(bob.address)).toBe(BOB_FUNDS);
    expect((await chain.account(alice.address)).sequence).toBe(2n);
  });

  it("refuses fee.granter (fee grants are off) before any state change", async () => {
    const tx = await cosmjsSigned(
      alice,
      [send(alice.address, carol.address, "1")],
      fee(FEE, { granter: bob.address }),
    );
    const check = await chain.check(tx);
    expect(check.code).toBe(18);
    expect(check.log).toBe("fee grants are not enabled on this chain: invalid request");
    const [result] = await chain.deliver([tx]);
    expect(result.code).toBe(18);
    await expectNothingMoved(0n);
    expect(await chain.balance(carol.address)).toBe(0n);
  });

  it("simulation counts the payer among the signers too", async () => {
    const simulate = (tx: Uint8Array) =>
      chain.node.app.query(
        "/cosmos.tx.v1beta1.Service/Simulate",
        toBinary(SimulateRequestSchema, create(SimulateRequestSchema, { txBytes: tx })),
      );
    const attack = await cosmjsSigned(
      alice,
      [send(alice.address, alice.address, "1")],
      fee(BOB_FUNDS, { payer: bob.address }),
    );
    await expect(simulate(attack)).rejects.toThrow("wrong number of signer infos; expected 2, got 1");
    const ok = await coSigned(
      [alice, bob],
      [send(alice.address, carol.address, "7")],
      fee(FEE, { payer: bob.address }),
    );
    await expect(simulate(ok)).resolves.toBeDefined();
    await expectNothingMoved(0n);
  });
});
