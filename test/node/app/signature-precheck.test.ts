import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AminoEncoder } from "../../../node/src/app/amino-types.js";
import { decodeTx } from "../../../node/src/app/tx-decoder.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { type DirectSigner, signTxDirect } from "../../../node/src/client/direct-signing.js";
import { signSecp256k1 } from "../../../node/src/crypto/secp256k1.js";
import type { SignatureCheck } from "../../../node/src/crypto/signature-batch.js";
import { directSignBytes } from "../../../node/src/modules/auth/direct-sign-doc.js";
import { SignatureChecks } from "../../../node/src/modules/auth/signature-checks.js";
import { type LoggedLine, recordingLogger } from "../helpers/recording-logger.js";
import { anyOf } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, type TestAccount, testAccount } from "../helpers/test-home.js";

const CHAIN_ID = "precheck-1";
const sink = testAccount("precheck-sink").address;

function sendTx(from: TestAccount, signer: DirectSigner, memo = ""): Promise<Uint8Array> {
  const msg = anyOf(MsgSendSchema, {
    fromAddress: from.address,
    toAddress: sink,
    amount: [{ denom: "stake", amount: "1" }],
  });
  return signTxDirect(
    { messages: [msg], memo, fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n } },
    [signer],
    CHAIN_ID,
  );
}

/** A signer with the account's key in its signer info and another key's signature: a forgery. */
function forger(a: TestAccount, accountNumber: bigint, sequence: bigint): DirectSigner {
  const other = sha256(new TextEncoder().encode(`not ${a.address}`));
  return { ...a.signer(accountNumber, sequence), sign: (b) => signSecp256k1(other, b) };
}

describe("SignatureChecks: the precheck ahead of CheckTx", () => {
  const { types } = TEST_DEFINITION.assemble({ chainId: CHAIN_ID, bech32Prefix: "sdk", minGasPrices: "" });
  const alice = testAccount("precheck-alice");
  // A stand-in for the signature thread (tested on its own in parallel-verifier.test.ts) that records what it
  // is sent and answers as the test says, to show what the ante handler then makes of the answer.
  const standIn = (answer: boolean | undefined) => {
    const sent: SignatureCheck[] = [];
    const verify = async (c: SignatureCheck) => {
      sent.push(c);
      return answer;
    };
    return { sent, verify };
  };

  it("sends a signature only once its signer has been verified, with the account number the ante handler saw", async () => {
    const thread = standIn(undefined);
    const checks = new SignatureChecks(new AminoEncoder(types), thread);
    const first = decodeTx(await sendTx(alice, alice.signer(7n, 0n)), types);
    await checks.precheck(first, CHAIN_ID);
    expect(thread.sent).toHaveLength(0);
    // The ante handler verifies the first send itself, against account number 7 from the state.
    const firstBytes = directSignBytes(first.raw.bodyBytes, first.raw.authInfoBytes, CHAIN_ID, 7n);
    expect(checks.verify(alice.pub, firstBytes, first.raw.signatures[0], 7n)).toBe(true);
    const second = decodeTx(await sendTx(alice, alice.signer(7n, 1n)), types);
    await checks.precheck(second, CHAIN_ID);
    expect(thread.sent).toHaveLength(1);
    const [sent] = thread.sent;
    expect(Buffer.from(sent.pubKey33).equals(Buffer.from(alice.pub))).toBe(true);
    expect(Buffer.from(sent.sig).equals(Buffer.from(second.raw.signatures[0]))).toBe(true);
    const expected = directSignBytes(second.raw.bodyBytes, second.raw.authInfoBytes, CHAIN_ID, 7n);
    expect(Buffer.from(sent.signBytes).equals(Buffer.from(expected))).toBe(true);
  });

  it("sends nothing for a tx with more signers than the default tx_sig_limit: a stranger cannot buy verifications", async () => {
    const thread = standIn(undefined);
    const checks = new SignatureChecks(new AminoEncoder(types), thread);
    const seen = decodeTx(await sendTx(alice, alice.signer(7n, 0n)), types);
    const seenBytes = directSignBytes(seen.raw.bodyBytes, seen.raw.authInfoBytes, CHAIN_ID, 7n);
    expect(checks.verify(alice.pub, seenBytes, seen.raw.signatures[0], 7n)).toBe(true);
    const signersTx = async (n: number) =>
      decodeTx(
        await signTxDirect(
          {
            messages: [anyOf(MsgSendSchema, { fromAddress: alice.address, toAddress: sink, amount: [] })],
            fee: { amount: [], gasLimit: 200_000n },
          },
          Array.from({ length: n }, (_, i) => alice.signer(7n, BigInt(i))),
          CHAIN_ID,
        ),
        types,
      );
    await checks.precheck(await signersTx(8), CHAIN_ID);
    expect(thread.sent).toHaveLength(0);
    await checks.precheck(await signersTx(7), CHAIN_ID);
    expect(thread.sent).toHaveLength(7);
  });

  it("the ante handler takes a true answer as verified, and verifies itself after a false or missing one", async () => {
    for (const answer of [true, false, undefined]) {
      const checks = new SignatureChecks(new AminoEncoder(types), standIn(answer));
      const seen = decodeTx(await sendTx(alice, alice.signer(3n, 0n)), types);
      const seenBytes = directSignBytes(seen.raw.bodyBytes, seen.raw.authInfoBytes, CHAIN_ID, 3n);
      expect(checks.verify(alice.pub, seenBytes, seen.raw.signatures[0], 3n)).toBe(true);
      const good = decodeTx(await sendTx(alice, alice.signer(3n, 1n)), types);
      const bad = decodeTx(await sendTx(alice, forger(alice, 3n, 1n), "forged"), types);
      await Promise.all([checks.precheck(good, CHAIN_ID), checks.precheck(bad, CHAIN_ID)]);
      const bytesOf = (t: typeof good) => directSignBytes(t.raw.bodyBytes, t.raw.authInfoBytes, CHAIN_ID, 3n);
      expect(checks.verify(alice.pub, bytesOf(good), good.raw.signatures[0], 3n)).toBe(true);
      // Only a stand-in that lies says true to a forgery; the node's own thread is the only verifier it is given.
      expect(checks.verify(alice.pub, bytesOf(bad), bad.raw.signatures[0], 3n)).toBe(answer === true);
    }
  });
});

describe("a node checking concurrent senders' signatures on its signature thread", () => {
  const accounts = Array.from({ length: 8 }, (_, i) => testAccount(`precheck-sender-${i}`));
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  const logs: LoggedLine[] = [];

  beforeAll(async () => {
    home = makeTestHome({
      chainId: CHAIN_ID,
      accounts: accounts.map((account) => ({ account, coins: "100000000stake" })),
    });
    node = await ChainNode.open(
      { home: home.home, definition: TEST_DEFINITION },
      { logger: recordingLogger(logs) },
    );
    await node.producer.produce();
  });
  afterAll(async () => {
    await node?.close();
    home.cleanup();
  });

  it("accepts the valid sends and refuses a forged one and one signed for another account number, all sent at once", async () => {
    // Genesis numbers the accounts in order. Each signs once first, which the ante handler verifies itself.
    for (const [i, a] of accounts.entries()) {
      const r = await node.mempool.add(await sendTx(a, a.signer(BigInt(i), 0n)));
      expect(r.code, r.log).toBe(0);
    }
    const firsts = await node.producer.produce();
    expect(firsts.txResults.map((r) => r.code)).toEqual(accounts.map(() => 0));

    const [forgedBy, misnumbered, ...honest] = accounts;
    const txs = await Promise.all([
      sendTx(forgedBy, forger(forgedBy, 0n, 1n)),
      sendTx(misnumbered, misnumbered.signer(0n, 1n)),
      ...honest.map((a, i) => sendTx(a, a.signer(BigInt(i + 2), 1n))),
    ]);
    const before = node.signatureThread.checked;
    const answers = await Promise.all(txs.map((tx) => node.mempool.add(tx)));
    // All eight went to the thread: the two bad ones too (their signers have signed before), found false there.
    expect(node.signatureThread.checked - before).toBe(8);
    expect(answers.map((r) => r.code)).toEqual([4, 4, ...honest.map(() => 0)]);
    expect(answers[0].log).toMatch(/^signature verification failed; please verify account number \(0\)/);
    expect(answers[1].log).toMatch(/^signature verification failed; please verify account number \(1\)/);
    const block = await node.producer.produce();
    expect(block.txResults.map((r) => r.code)).toEqual(honest.map(() => 0));
    expect(logs.filter((l) => l.msg === "signature thread ready")).toEqual([
      { msg: "signature thread ready", ctx: { library: "libsecp256k1" } },
    ]);
  });
});
