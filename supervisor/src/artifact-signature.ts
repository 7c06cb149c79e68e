import { ed25519 } from "@noble/curves/ed25519.js";
import { VisorError } from "./visor-error.js";

function keyBytes(k: string): Uint8Array {
  const bytes = /^[0-9a-fA-F]{64}$/.test(k) ? Buffer.from(k, "hex") : Buffer.from(k, "base64");
  if (bytes.length !== 32)
    throw new VisorError(
      "CONFIG",
      `VISOR_TRUSTED_KEYS: ${k} is not a 32-byte ed25519 public key (hex or base64)`,
    );
  return bytes;
}

/**
 * With VISOR_TRUSTED_KEYS set, an artifact is accepted only with a detached ed25519 signature, published at
 * `<artifact url>.sig` (base64, or the raw 64 bytes), over the artifact's 32-byte SHA-256 digest, made by one
 * of the trusted keys.
 */
export async function verifyArtifactSignature(
  url: string,
  sha256Hex: string,
  trustedKeys: string[],
): Promise<void> {
  if (trustedKeys.length === 0) return;
  const sigUrl = new URL(url);
  sigUrl.pathname += ".sig";
  let raw: Buffer;
  try {
    const res = await fetch(sigUrl, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    raw = Buffer.from(await res.arrayBuffer());
  } catch (e) {
    throw new VisorError("SIGNATURE", `cannot fetch signature ${sigUrl}: ${(e as Error).message}`);
  }
  const sig = raw.length === 64 ? raw : Buffer.from(raw.toString("utf8").trim(), "base64");
  const digest = Buffer.from(sha256Hex, "hex");
  const ok = sig.length === 64 && trustedKeys.some((k) => ed25519.verify(sig, digest, keyBytes(k)));
  if (!ok) throw new VisorError("SIGNATURE", `no trusted key signed ${url} (signature ${sigUrl})`);
}
