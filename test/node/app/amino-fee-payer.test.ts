import { create, toBinary } from "@bufbuild/protobuf";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import { AuthInfoSchema, TxBodySchema, TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { makeSignDoc, Secp256k1Wallet } from "@cosmjs/amino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { directSignerInfo } from "../../../node/src/client/direct-signing.js";
import { AppChain } from "../helpers/app-chain.js";
import { anyOf } from "../helpers/signed-tx.js";
import { testAccount } from "../helpers/test-home.js";

// alice sends; bob is named as the fee payer; carol receives.
const alice = testAccount("amino-alice");
const bob = testAccount("amino-bob");
const carol = testAccount("amino-carol");
const FEE = { amount: [{ denom: "stake", amount: "5000" }], gas: "200000" };
const send = {
  fromAddress: alice.address,
  toAddress: carol.address,
  amount: [{ denom: "stake", amount: "10" }],
};
const aminoSend = {
  type: "cosmos-sdk/MsgSend",
  value: { amount: send.amount, from_address: send.fromAddress, to_address: send.toAddress },
};

describe("amino JSON signatures and the fee payer: every account that pays must have signed", () => {
  let chain: AppChain;
  beforeAll(async () => {
    chain = await AppChain.open({
      accounts: [
        { account: alice, coins: "10000000stake" },
        { account: bob, coins: "10000000stake" },
      ],
    });
  });
  afterAll(() => chain.close());

  /** `who`'s amino JSON signature, made by CosmJS, over the document with this fee. */
  async function aminoSig(who: typeof alice, fee: typeof FEE & { payer?: string }): Promise<Uint8Array> {
    const { accountNumber, sequence } = await chain.account(who.address);
    const wallet = await Secp256k1Wallet.fromKey(who.priv, "sdk");
    const doc = makeSignDoc(
      [aminoSend],
      fee,
      chain.chainId,
      "",
      accountNumber.toString(),
      sequence.toString(),
    );
    const { signature } = await wallet.signAmino(who.address, doc);
    return Buffer.from(signature.signature, "base64");
  }

  async function tx(signers: (typeof alice)[], signatures: Uint8Array[]): Promise<Uint8Array> {
    const infos = [];
    for (const s of signers) {
      const { sequence } = await chain.account(s.address);
      infos.push(directSignerInfo({ pubKey: s.pub, sequence }, SignMode.LEGACY_AMINO_JSON));
    }
    return toBinary(
      TxRawSchema,
      create(TxRawSchema, {
        bodyBytes: toBinary(TxBodySchema, create(TxBodySchema, { messages: [anyOf(MsgSendSchema, send)] })),
        authInfoBytes: toBinary(
          AuthInfoSchema,
          create(AuthInfoSchema, {
            signerInfos: infos,
            fee: { amount: FEE.amount, gasLimit: BigInt(FEE.gas), payer: bob.address },
          }),
        ),
        signatures,
      }),
    );
  }

  /** CheckTx refuses it, and so does a block that includes it anyway: bob keeps every coin. */
  async function refused(bytes: Uint8Array, why: RegExp) {
    const before = await chain.balance(bob.address);
    const checked = await chain.check(bytes);
    expect(checked.code).not.toBe(0);
    expect(checked.log).toMatch(why);
    const [delivered] = await chain.deliver([bytes]);
    expect(delivered.code).not.toBe(0);
    expect(await chain.balance(bob.address)).toBe(before);
  }

  it("refuses alice's amino-signed tx naming bob as payer when bob did not sign", async () => {
    const withPayer = { ...FEE, payer: bob.address };
    await refused(
      await tx([alice], [await aminoSig(alice, withPayer)]),
      /wrong number of signers; expected 2, got 1/,
    );
    // A second signature that is not bob's does not stand in for his.
    const sig = await aminoSig(alice, withPayer);
    await refused(await tx([alice, bob], [sig, sig]), /signature verification failed/);
  });

  it("refuses it when alice's signature does not cover bob as payer, though bob signed", async () => {
    const withoutPayer = await aminoSig(alice, FEE);
    const bobs = await aminoSig(bob, { ...FEE, payer: bob.address });
    await refused(await tx([alice, bob], [withoutPayer, bobs]), /signature verification failed/);
  });

  it("accepts it when both sign the same document in amino JSON, and bob pays", async () => {
    const withPayer = { ...FEE, payer: bob.address };
    const bytes = await tx([alice, bob], [await aminoSig(alice, withPayer), await aminoSig(bob, withPayer)]);
    const before = { bob: await chain.balance(bob.address), carol: await chain.balance(carol.address) };
    const [r] = await chain.deliver([bytes]);
    expect(r.code, r.log).toBe(0);
    expect(before.bob - (await chain.balance(bob.address))).toBe(5000n);
    expect((await chain.balance(carol.address)) - before.carol).toBe(10n);
  });
});
