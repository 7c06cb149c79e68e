import { ed25519 } from "@noble/curves/ed25519.js";
import { trustedKeyBytes } from "../config/trusted-key.js";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import type { PlanArtifact } from "./plan-info.js";
import { type FetchPolicy, readUrl } from "./url-fetch.js";

/** The first line of every signed message; a new format gets a new version, and old ones are refused. */
export const SIGNATURE_FORMAT = "visor-artifact-signature-v1";

/** A signature is 64 bytes, or 88 characters of base64: anything much larger is not one. */
const MAX_SIGNATURE_BYTES = 4096;

/** What a signature vouches for: this artifact, for this plan, on this platform. */
export interface SignedArtifact {
  /** The plan name exactly as the upgrade proposal spells it. */
  plan: string;
  /** The Plan.info key the artifact was taken from: a Go `os/arch` such as `linux/amd64`, or `any`. */
  platform: string;
  /** The artifact's SHA-256, hex. */
  sha256: string;
}

/**
 * The bytes a release signs with ed25519, so that a signature made for one plan, platform or artifact is good
 * for no other (an older release signed by the same key cannot be swapped in). UTF-8, each line ending in `\n`:
 *
 *     visor-artifact-signature-v1
 *     plan=<plan name>
 *     platform=<os/arch or any>
 *     sha256=<64 lower-case hex digits>
 */
export function signatureMessage(a: SignedArtifact): Buffer {
  for (const [field, value] of Object.entries(a))
    if (/[\r\n]/.test(value))
      throw new VisorError("SIGNATURE", `${field} ${JSON.stringify(value)} holds a line break`);
  if (!/^[0-9a-fA-F]{64}$/.test(a.sha256))
    throw new VisorError("SIGNATURE", `sha256 ${JSON.stringify(a.sha256)} is not 64 hex digits`);
  const text = `${SIGNATURE_FORMAT}\nplan=${a.plan}\nplatform=${a.platform}\nsha256=${a.sha256.toLowerCase()}\n`;
  return Buffer.from(text, "utf8");
}

function keyBytes(k: string): Uint8Array {
  const bytes = trustedKeyBytes(k);
  if (!bytes)
    throw new VisorError(
      "CONFIG",
      `VISOR_TRUSTED_KEYS: ${k} is not a 32-byte ed25519 public key (hex or base64)`,
    );
  return bytes;
}

/**
 * With VISOR_TRUSTED_KEYS set, an artifact is accepted only with a detached ed25519 signature, published at
 * `<artifact url>.sig` (base64, or the raw 64 bytes), over its {@link signatureMessage}, by one of the keys.
 */
export async function verifyArtifactSignature(
  signed: { artifact: PlanArtifact; plan: string; sha256: string },
  config: Pick<VisorConfig, "trustedKeys"> & FetchPolicy,
): Promise<void> {
  if (config.trustedKeys.length === 0) return;
  const keys = config.trustedKeys.map(keyBytes);
  const { artifact, plan, sha256 } = signed;
  const sigUrl = new URL(artifact.url);
  sigUrl.pathname += ".sig";
  let raw: Buffer;
  try {
    raw = await readUrl(sigUrl.href, config, {
      maxBytes: MAX_SIGNATURE_BYTES,
      limitName: "the limit for signatures",
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new VisorError("SIGNATURE", `cannot fetch signature ${sigUrl}: ${(e as Error).message}`);
  }
  const sig = raw.length === 64 ? raw : Buffer.from(raw.toString("utf8").trim(), "base64");
  if (sig.length === 64) {
    const message = signatureMessage({ plan, platform: artifact.platform, sha256 });
    if (keys.some((k) => ed25519.verify(sig, message, k))) return;
    if (keys.some((k) => ed25519.verify(sig, Buffer.from(sha256, "hex"), k)))
      throw new VisorError(
        "SIGNATURE",
        `signature ${sigUrl} signs the bare digest, a format visor no longer accepts: the format changed to ${SIGNATURE_FORMAT} (plan, platform and digest); sign ${artifact.url} again (docs/OPERATIONS.md)`,
      );
  }
  throw new VisorError(
    "SIGNATURE",
    `no trusted key signed ${artifact.url} for plan ${JSON.stringify(plan)} on ${artifact.platform} (signature ${sigUrl})`,
  );
}
