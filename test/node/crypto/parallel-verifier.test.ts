import { sha256 } from "@noble/hashes/sha2.js";
import { afterEach, describe, expect, it } from "vitest";
import { ParallelVerifier } from "../../../node/src/crypto/parallel-verifier.js";
import { secp256k1PublicKey, signSecp256k1 } from "../../../node/src/crypto/secp256k1.js";
import { packChecks, type SignatureCheck, unpackChecks } from "../../../node/src/crypto/signature-batch.js";
import { type LoggedLine, recordingLogger } from "../helpers/recording-logger.js";

const text = (s: string) => new TextEncoder().encode(s);
const priv = sha256(text("parallel verifier key"));
const pubKey33 = secp256k1PublicKey(priv);

function check(doc: string): SignatureCheck {
  const signBytes = text(doc);
  return { pubKey33, signBytes, sig: signSecp256k1(priv, signBytes) };
}

/** The same signature over other bytes: what a forger replaying a signature sends. */
function forged(doc: string): SignatureCheck {
  return { ...check(doc), signBytes: text(`${doc} changed`) };
}

describe("signature batches between threads", () => {
  it("pack and unpack to the same checks, and a cut or padded batch is refused", () => {
    const checks = [check("a"), check("a much longer sign doc ".repeat(40)), check("")];
    const back = unpackChecks(packChecks(checks));
    expect(
      back.map((c) => [c.pubKey33, c.sig, c.signBytes].map((b) => Buffer.from(b).toString("hex"))),
    ).toEqual(checks.map((c) => [c.pubKey33, c.sig, c.signBytes].map((b) => Buffer.from(b).toString("hex"))));
    const packed = packChecks(checks);
    expect(() => unpackChecks(packed.subarray(0, packed.length - 1))).toThrow(/runs past the end/);
    expect(() => unpackChecks(new Uint8Array([...packed, 0]))).toThrow(/bytes after its last check/);
    expect(() => packChecks([{ ...check("x"), sig: new Uint8Array(63) }])).toThrow(/64-byte signature/);
  });
});

describe("ParallelVerifier (a real worker thread running the built signature-thread.js)", () => {
  let verifier: ParallelVerifier | undefined;
  afterEach(async () => {
    await verifier?.close();
    verifier = undefined;
  });

  it("verifies the checks of one turn on its thread: valid ones true, forged ones false, in the callers' order", async () => {
    const lines: LoggedLine[] = [];
    verifier = new ParallelVerifier(recordingLogger(lines));
    const checks = Array.from({ length: 11 }, (_, i) =>
      i % 3 === 1 ? forged(`doc ${i}`) : check(`doc ${i}`),
    );
    const answers = await Promise.all(checks.map((c) => verifier!.verify(c)));
    expect(answers).toEqual(checks.map((_, i) => i % 3 !== 1));
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    expect(lines).toEqual([{ msg: "signature thread ready", ctx: { library: "libsecp256k1" } }]);
  });

  it("leaves a check alone in its turn to the caller (undefined): a wake-up costs more than it saves", async () => {
    verifier = new ParallelVerifier(recordingLogger([]));
    expect(await verifier.verify(check("alone"))).toBeUndefined();
    expect(await verifier.verify(forged("alone"))).toBeUndefined();
  });

  it("answers undefined after close, and for checks still out when it closes", async () => {
    verifier = new ParallelVerifier(recordingLogger([]));
    const out = [verifier.verify(check("1")), verifier.verify(check("2"))];
    await verifier.close();
    expect(await Promise.all(out)).toEqual([undefined, undefined]);
    expect(await Promise.all([verifier.verify(check("3")), verifier.verify(check("4"))])).toEqual([
      undefined,
      undefined,
    ]);
  });

  it("warns once when its thread dies, and from then on leaves every check to the caller", async () => {
    const lines: LoggedLine[] = [];
    verifier = new ParallelVerifier(recordingLogger(lines), {
      url: new URL("data:,"),
      code: 'require("node:worker_threads").parentPort.on("message", () => { throw new Error("thread broke"); });',
    });
    const answers = await Promise.all([verifier.verify(check("a")), verifier.verify(check("b"))]);
    expect(answers).toEqual([undefined, undefined]);
    await expect.poll(() => lines.length).toBeGreaterThan(0);
    expect(lines).toEqual([
      {
        msg: "the signature thread failed: thread broke; signatures are verified on the main thread from now on",
      },
    ]);
    expect(await Promise.all([verifier.verify(check("c")), verifier.verify(check("d"))])).toEqual([
      undefined,
      undefined,
    ]);
  });
});
