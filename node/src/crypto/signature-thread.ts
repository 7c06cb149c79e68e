import { parentPort } from "node:worker_threads";
import { loadSecp256k1Binding } from "./secp256k1-binding.js";
import { verifyWithBinding } from "./secp256k1-verify.js";
import { type FromSignatureThread, unpackChecks, type VerifyRequest } from "./signature-batch.js";

// The node's signature thread: verifies batches of checks for the main thread (parallel-verifier.ts). Only
// through libsecp256k1: when it does not load, the thread fails and the main thread verifies inline.
const binding = loadSecp256k1Binding();
const answer = (m: FromSignatureThread, transfer: ArrayBuffer[] = []) => parentPort?.postMessage(m, transfer);
parentPort?.on("message", ({ id, batch }: VerifyRequest) => {
  const checks = unpackChecks(batch);
  const verdicts = new Uint8Array(checks.length);
  for (const [i, c] of checks.entries())
    verdicts[i] = verifyWithBinding(binding, c.pubKey33, c.signBytes, c.sig) ? 1 : 0;
  answer({ kind: "verdicts", id, verdicts }, [verdicts.buffer]);
});
answer({ kind: "ready" });
