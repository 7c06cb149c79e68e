import { parentPort } from "node:worker_threads";
import { secp256k1Backend, verifySecp256k1 } from "./secp256k1.js";
import { type FromSignatureThread, unpackChecks, type VerifyRequest } from "./signature-batch.js";

// The node's signature thread: verifies batches of checks for the main thread (parallel-verifier.ts).
const answer = (m: FromSignatureThread, transfer: ArrayBuffer[] = []) => parentPort?.postMessage(m, transfer);
parentPort?.on("message", ({ id, batch }: VerifyRequest) => {
  const checks = unpackChecks(batch);
  const verdicts = new Uint8Array(checks.length);
  for (const [i, c] of checks.entries())
    verdicts[i] = verifySecp256k1(c.pubKey33, c.signBytes, c.sig) ? 1 : 0;
  answer({ kind: "verdicts", id, verdicts }, [verdicts.buffer]);
});
answer({ kind: "ready", backend: secp256k1Backend() });
