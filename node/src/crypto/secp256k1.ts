import { secp256k1 as noble } from "@noble/curves/secp256k1.js";
import { loadSecp256k1Binding, type Secp256k1Binding } from "./secp256k1-binding.js";
import { verifyWithBinding } from "./secp256k1-verify.js";
import { sha256 } from "./sha256.js";

/** Which implementation signs and verifies: libsecp256k1, or @noble/curves when no binding loads. */
export type Secp256k1Backend = "libsecp256k1" | "noble";

const nobleBinding: Secp256k1Binding = {
  publicKeyCreate: (seckey, compressed) => noble.getPublicKey(seckey, compressed),
  ecdsaSign: (msg32, seckey) => ({
    signature: noble.sign(msg32, seckey, { prehash: false, lowS: true, format: "compact" }),
    recid: 0,
  }),
  ecdsaVerify: (sig, msg32, pubkey) =>
    noble.verify(sig, msg32, pubkey, { prehash: false, lowS: true, format: "compact" }),
};

interface Secp256k1Implementation {
  backend: Secp256k1Backend;
  binding: Secp256k1Binding;
}

/**
 * libsecp256k1 from `load`, or @noble/curves (about 25 times slower) with one warning line when it cannot load.
 * `CHAIND_SECP256K1=noble` chooses noble on purpose, silently. Both give the same signatures (RFC 6979, low S).
 */
export function selectSecp256k1(
  load: () => Secp256k1Binding,
  warn: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Secp256k1Implementation {
  if (env.CHAIND_SECP256K1 === "noble") return { backend: "noble", binding: nobleBinding };
  try {
    return { backend: "libsecp256k1", binding: load() };
  } catch (err) {
    const reason = (err instanceof Error ? err.message : String(err)).split("\n")[0];
    warn(
      `warning: libsecp256k1 could not be loaded (${reason}); signatures are checked with @noble/curves, which is much slower`,
    );
    return { backend: "noble", binding: nobleBinding };
  }
}

let chosen: Secp256k1Implementation | undefined;

function implementation(): Secp256k1Implementation {
  chosen ??= selectSecp256k1(loadSecp256k1Binding, (line) => process.stderr.write(`${line}\n`));
  return chosen;
}

/** The implementation in use (loading it if needed), which the benchmarks report. */
export function secp256k1Backend(): Secp256k1Backend {
  return implementation().backend;
}

/** The 33-byte compressed public key of a 32-byte private key; throws if the key is out of range. */
export function secp256k1PublicKey(priv: Uint8Array): Uint8Array {
  return implementation().binding.publicKeyCreate(priv, true);
}

/** Signs sha256(signBytes); 64 bytes r||s with low S, as Cosmos requires. */
export function signSecp256k1(priv: Uint8Array, signBytes: Uint8Array): Uint8Array {
  return implementation().binding.ecdsaSign(sha256(signBytes), priv).signature;
}

/** Verifies a 64-byte r||s signature over sha256(signBytes); high-S and malformed input are false, never a throw. */
export function verifySecp256k1(pubKey33: Uint8Array, signBytes: Uint8Array, sig: Uint8Array): boolean {
  return verifyWithBinding(implementation().binding, pubKey33, signBytes, sig);
}
