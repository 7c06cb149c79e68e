import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Secp256k1HdWallet } from "@cosmjs/amino";
import {
  DirectSecp256k1HdWallet,
  makeAuthInfoBytes,
  makeSignBytes,
  makeSignDoc,
} from "@cosmjs/proto-signing";
import { GasPrice, SigningStargateClient, StargateClient } from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
import { MsgSend } from "cosmjs-types/cosmos/bank/v1beta1/tx";
import { TxBody, TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { Any } from "cosmjs-types/google/protobuf/any";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NodeProcess, startTestnet, stopNode } from "../helpers/chaind-process.js";

const sendAny = (from: string, to: string, amount: string): Any =>
  Any.fromPartial({
    typeUrl: "/cosmos.bank.v1beta1.MsgSend",
    value: MsgSend.encode({
      fromAddress: from,
      toAddress: to,
      amount: [{ denom: "stake", amount }],
    }).finish(),
  });

/**
 * The second outside review's forgery, replayed with stock CosmJS against a `chaind testnet` node: a DIRECT
 * signature over one tx (tx1) must not authorize another (tx2) through the verified-signature cache. tx1's
 * body ends with a non-critical extension option whose bytes end with `0a <len> <evil body>`, so tx1's sign
 * bytes are (a prefix) followed by tx2's sign bytes; tx2 carries tx1's signature with that prefix appended.
 * A cache keyed by sha256(key || signature || signed bytes) took both for the same check.
 */
describe("a signature authorizes only its own tx", () => {
  let dir: string;
  let node: NodeProcess;
  let rpc: string;
  let victim: string;
  let attacker: string;
  let wallet: DirectSecp256k1HdWallet;
  let aliceMnemonic: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "splice-"));
    const started = await startTestnet(join(dir, "home"), ["--keys", "2", "--block-time", "300ms"]);
    node = started.node;
    rpc = started.rpc.replace(/^tcp:/, "http:");
    const alice = started.keys.find((k) => k.name === "alice")!;
    attacker = started.keys.find((k) => k.name === "bob")!.address;
    wallet = await DirectSecp256k1HdWallet.fromMnemonic(alice.mnemonic, { prefix: "sdk" });
    victim = alice.address;
    aliceMnemonic = alice.mnemonic;
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses tx2 with code 4 after tx1 was prechecked, and nothing moves", async () => {
    const signing = await SigningStargateClient.connectWithSigner(rpc, wallet, {
      gasPrice: GasPrice.fromString("0.0001stake"),
    });
    // An ordinary send first: the node learns the victim's account number, so its signature thread checks the
    // victim's later signatures ahead of CheckTx.
    const first = await signing.sendTokens(victim, attacker, [{ denom: "stake", amount: "1" }], "auto");
    expect(first.code).toBe(0);

    const reader = await StargateClient.connect(rpc);
    const chainId = await reader.getChainId();
    const account = (await reader.getAccount(victim))!;
    const [{ pubkey }] = await wallet.getAccounts();
    const height = await reader.getHeight();

    const evilBody = TxBody.encode(
      TxBody.fromPartial({ messages: [sendAny(victim, attacker, "1000000")] }),
    ).finish();
    // What the dApp hands the victim: a 1-unit send that expires soon, with an "ignored" extension option.
    const body1 = TxBody.encode(
      TxBody.fromPartial({
        messages: [sendAny(victim, attacker, "1")],
        timeoutHeight: BigInt(height + 2),
        nonCriticalExtensionOptions: [
          Any.fromPartial({
            typeUrl: "/dapp.v1.Ignored",
            value: new Uint8Array([0x0a, ...varint(evilBody.length), ...evilBody]),
          }),
        ],
      }),
    ).finish();
    const authInfo = makeAuthInfoBytes(
      [
        {
          pubkey: { typeUrl: "/cosmos.crypto.secp256k1.PubKey", value: protoPubKey(pubkey) },
          sequence: account.sequence,
        },
      ],
      [{ denom: "stake", amount: "100" }],
      400_000,
      undefined,
      undefined,
    );
    const accountNumber = BigInt(account.accountNumber);
    const signBytes1 = makeSignBytes(makeSignDoc(body1, authInfo, chainId, accountNumber));
    const signBytes2 = makeSignBytes(makeSignDoc(evilBody, authInfo, chainId, accountNumber));
    // The construction works: tx1's signed bytes end with tx2's.
    expect(Buffer.from(signBytes1.subarray(signBytes1.length - signBytes2.length))).toEqual(
      Buffer.from(signBytes2),
    );
    const { signature } = await wallet.signDirect(
      victim,
      makeSignDoc(body1, authInfo, chainId, accountNumber),
    );
    const sig1 = Buffer.from(signature.signature, "base64");
    const tx1 = TxRaw.encode({ bodyBytes: body1, authInfoBytes: authInfo, signatures: [sig1] }).finish();

    // tx1 expires unsent; then the attacker broadcasts it several times at once: refused, but checked ahead.
    while ((await reader.getHeight()) < height + 2) await new Promise((r) => setTimeout(r, 100));
    const comet = await Comet38Client.connect(rpc);
    const expired = await Promise.all([1, 2, 3, 4].map(() => comet.broadcastTxSync({ tx: tx1 })));
    for (const r of expired) expect(r.code).toBe(30);
    await node.waitFor(/signature thread ready/);

    const before = {
      victim: await reader.getBalance(victim, "stake"),
      attacker: await reader.getBalance(attacker, "stake"),
      sequence: (await reader.getAccount(victim))!.sequence,
    };
    const spliced = new Uint8Array([
      ...sig1,
      ...signBytes1.subarray(0, signBytes1.length - signBytes2.length),
    ]);
    const tx2 = TxRaw.encode({
      bodyBytes: evilBody,
      authInfoBytes: authInfo,
      signatures: [spliced],
    }).finish();
    const forged = await comet.broadcastTxSync({ tx: tx2 });
    expect(forged.code, forged.log).toBe(4);
    expect(forged.log).toMatch(/signature verification failed: a secp256k1 signature is 64 bytes, got \d+/);

    // A few blocks later nothing has moved: no balance, no sequence.
    const at = await reader.getHeight();
    while ((await reader.getHeight()) < at + 3) await new Promise((r) => setTimeout(r, 100));
    expect(await reader.getBalance(victim, "stake")).toEqual(before.victim);
    expect(await reader.getBalance(attacker, "stake")).toEqual(before.attacker);
    expect((await reader.getAccount(victim))!.sequence).toBe(before.sequence);
    comet.disconnect();
    reader.disconnect();
    signing.disconnect();
  });

  it("refuses a signature that is not 64 bytes in amino JSON mode too, before any check", async () => {
    const amino = await Secp256k1HdWallet.fromMnemonic(aliceMnemonic, { prefix: "sdk" });
    const reader = await StargateClient.connect(rpc);
    const account = (await reader.getAccount(victim))!;
    const offline = await SigningStargateClient.offline(amino);
    const signed = await offline.sign(
      victim,
      [
        {
          typeUrl: "/cosmos.bank.v1beta1.MsgSend",
          value: { fromAddress: victim, toAddress: attacker, amount: [{ denom: "stake", amount: "5" }] },
        },
      ],
      { amount: [{ denom: "stake", amount: "100" }], gas: "200000" },
      "",
      {
        accountNumber: account.accountNumber,
        sequence: account.sequence,
        chainId: await reader.getChainId(),
      },
    );
    const comet = await Comet38Client.connect(rpc);
    // One byte more, one byte less.
    const good = signed.signatures[0];
    for (const sig of [new Uint8Array([...good, 0x0a]), good.subarray(0, 63)]) {
      const r = await comet.broadcastTxSync({ tx: TxRaw.encode({ ...signed, signatures: [sig] }).finish() });
      expect(r.code, r.log).toBe(4);
      expect(r.log).toContain(`a secp256k1 signature is 64 bytes, got ${sig.length}`);
    }
    expect((await reader.getAccount(victim))!.sequence).toBe(account.sequence);
    comet.disconnect();
    reader.disconnect();
  });
});

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
  return [...out, n];
}

/** A secp256k1 PubKey message holding the 33-byte key (field 1, bytes). */
function protoPubKey(key: Uint8Array): Uint8Array {
  return new Uint8Array([0x0a, key.length, ...key]);
}
