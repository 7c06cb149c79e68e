import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { MultiSignatureSchema } from "@chaind/proto/sdk/crypto/multisig/v1beta1/multisig_pb";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import { AuthInfoSchema, TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { createMultisigThresholdPubkey, pubkeyToAddress, Secp256k1HdWallet } from "@cosmjs/amino";
import { encodePubkey } from "@cosmjs/proto-signing";
import { SigningStargateClient, StargateClient, type StdFee } from "@cosmjs/stargate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeProcess } from "../helpers/chaind-process.js";
import { makeTestHome, type TestAccount, testAccount } from "../helpers/test-home.js";

// Three members' keys, BIP39 test mnemonics; the multisig account needs 2 of them.
const MNEMONICS = [
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about",
  "legal winner thank year wave sausage worth useful legal winner thank yellow",
  "letter advice cage absurd amount doctor acoustic avoid letter advice cage above",
];
const FEE: StdFee = { amount: [{ denom: "stake", amount: "10000" }], gas: "300000" };

/**
 * A 2-of-3 multisig account made and signed by stock CosmJS 0.39 (its key, address and amino JSON
 * sub-signatures), broadcast through the RPC. The tx is put together here as CosmJS's makeMultisignedTx does:
 * that function fails in CosmJS 0.38.1 and 0.39.0 with @scure/base 2.4 (its bech32 decode refuses the Infinity limit
 * CosmJS passes), before anything reaches a node.
 */
describe("multisig accounts from CosmJS: LegacyAminoPubKey, its address, and k-of-n signatures", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let rpc: string;
  let client: StargateClient;
  const members: { address: string; wallet: Secp256k1HdWallet; pubkey: Uint8Array }[] = [];
  let multisigPubkey: ReturnType<typeof createMultisigThresholdPubkey>;
  let multisig: string;
  const recipient = testAccount("recipient").address;

  beforeAll(async () => {
    for (const m of MNEMONICS) {
      const wallet = await Secp256k1HdWallet.fromMnemonic(m, { prefix: "sdk" });
      const [{ address, pubkey }] = await wallet.getAccounts();
      members.push({ address, wallet, pubkey });
    }
    multisigPubkey = createMultisigThresholdPubkey(
      members.map((m) => ({
        type: "tendermint/PubKeySecp256k1",
        value: Buffer.from(m.pubkey).toString("base64"),
      })),
      2,
    );
    multisig = pubkeyToAddress(multisigPubkey, "sdk");
    home = makeTestHome({
      chainId: "multisig-1",
      accounts: [{ account: { address: multisig } as TestAccount, coins: "1000000stake" }],
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 200;
      },
    });
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2/);
    client = await StargateClient.connect(rpc);
  });
  afterAll(async () => {
    client?.disconnect();
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  /** A send of `amount` from the multisig account, signed by the members named by index. */
  async function multisigned(signerIndexes: number[], amount: string): Promise<Uint8Array> {
    const account = await client.getAccount(multisig);
    const signerData = {
      accountNumber: account!.accountNumber,
      sequence: account!.sequence,
      chainId: "multisig-1",
    };
    const send = {
      typeUrl: "/cosmos.bank.v1beta1.MsgSend",
      value: { fromAddress: multisig, toAddress: recipient, amount: [{ denom: "stake", amount }] },
    };
    const signatures = new Map<string, Uint8Array>();
    let bodyBytes: Uint8Array = new Uint8Array();
    for (const i of signerIndexes) {
      const offline = await SigningStargateClient.offline(members[i].wallet);
      const signed = await offline.sign(members[i].address, [send], FEE, "2 of 3", signerData);
      bodyBytes = signed.bodyBytes;
      signatures.set(Buffer.from(members[i].pubkey).toString("base64"), signed.signatures[0]);
    }
    // In the multisig key's own order of keys (CosmJS sorts them): a bit and a signature per signer.
    const order = multisigPubkey.value.pubkeys.map((k) => k.value as string);
    const elems = new Uint8Array(Math.ceil(order.length / 8));
    order.forEach((k, i) => {
      if (signatures.has(k)) elems[i >> 3] |= 1 << (7 - (i & 7));
    });
    const sigs = order.filter((k) => signatures.has(k)).map((k) => signatures.get(k)!);
    const authInfo = create(AuthInfoSchema, {
      signerInfos: [
        {
          publicKey: encodePubkey(multisigPubkey),
          modeInfo: {
            sum: {
              case: "multi",
              value: {
                bitarray: { extraBitsStored: order.length % 8, elems },
                modeInfos: sigs.map(() => ({
                  sum: { case: "single" as const, value: { mode: SignMode.LEGACY_AMINO_JSON } },
                })),
              },
            },
          },
          sequence: BigInt(account!.sequence),
        },
      ],
      fee: { amount: [...FEE.amount], gasLimit: BigInt(FEE.gas) },
    });
    return toBinary(
      TxRawSchema,
      create(TxRawSchema, {
        bodyBytes,
        authInfoBytes: toBinary(AuthInfoSchema, authInfo),
        signatures: [toBinary(MultiSignatureSchema, create(MultiSignatureSchema, { signatures: sigs }))],
      }),
    );
  }

  it("2 of 3 members sign: the tx commits and the account keeps the multisig key", async () => {
    const result = await client.broadcastTx(await multisigned([0, 2], "777"), 20_000, 200);
    expect(result.code, result.rawLog).toBe(0);
    expect(await client.getBalance(recipient, "stake")).toEqual({ denom: "stake", amount: "777" });
    const account = await client.getAccount(multisig);
    expect(account?.sequence).toBe(1);
    expect(account?.pubkey).toEqual(multisigPubkey);
    // The other pair signs the next one.
    const next = await client.broadcastTx(await multisigned([1, 2], "1"), 20_000, 200);
    expect(next.code, next.rawLog).toBe(0);
  });

  it("one signature against a threshold of 2 is refused, and so is a member's signature over other bytes", async () => {
    const refused = await client.broadcastTx(await multisigned([1], "5"), 20_000, 200).catch((e: Error) => e);
    expect(String(refused)).toMatch(/not enough signatures: 1 of threshold 2/);
    const tampered = await multisigned([0, 1], "5");
    // Change the amount inside the signed body: both signatures then cover other bytes.
    const coin = Buffer.from("stake\x12\x015", "latin1");
    const at = Buffer.from(tampered).indexOf(coin);
    expect(at).toBeGreaterThan(0);
    tampered[at + coin.length - 1] = "6".charCodeAt(0);
    const bad = await client.broadcastTx(tampered, 20_000, 200).catch((e: Error) => e);
    expect(String(bad)).toMatch(/signature of multisig key \d verification failed/);
  });

  it("a member's signature that is not 64 bytes is refused before it is checked", async () => {
    const good = fromBinary(TxRawSchema, await multisigned([0, 2], "9"));
    const multi = fromBinary(MultiSignatureSchema, good.signatures[0]);
    // The second member's signature with the start of other bytes appended.
    multi.signatures[1] = new Uint8Array([...multi.signatures[1], 0x0a, 0x01]);
    good.signatures[0] = toBinary(MultiSignatureSchema, multi);
    const refused = await client.broadcastTx(toBinary(TxRawSchema, good), 20_000, 200).catch((e: Error) => e);
    expect(String(refused)).toMatch(
      /signature of multisig key \d: a secp256k1 signature is 64 bytes, got 66/,
    );
    expect((await client.getAccount(multisig))?.sequence).toBe(2);
  });
});
