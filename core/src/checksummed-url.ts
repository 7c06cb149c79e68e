import { PlanInfoError } from "./plan-info-error.js";

export interface Checksum {
  algorithm: ChecksumAlgorithm;
  hex: string;
}

/** go-getter's checksum types, by the length of their hex digest. */
const HEX_LENGTH = { md5: 32, sha1: 40, sha256: 64, sha384: 96, sha512: 128 } as const;
export type ChecksumAlgorithm = keyof typeof HEX_LENGTH;

/** Broken as digests (collisions can be made): taken only where the operator says so. */
const WEAK = new Set<ChecksumAlgorithm>(["md5", "sha1"]);
export const WEAK_CHECKSUMS_SETTING = "VISOR_ALLOW_WEAK_CHECKSUMS";

export interface ChecksummedUrl {
  /** The URL to fetch, without the `checksum` parameter. */
  url: string;
  checksum: Checksum | null;
}

const SCHEMES = ["http:", "https:", "file:"];

/**
 * Splits `<url>?checksum=<type>:<hex>` (go-getter's form) into the URL and the expected digest. md5 and sha1
 * are refused unless `allowWeak`.
 */
export function parseChecksummedUrl(
  raw: string,
  mustHaveChecksum: boolean,
  allowWeak = false,
): ChecksummedUrl {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new PlanInfoError("PLAN_INFO", `invalid URL ${JSON.stringify(raw)}`);
  }
  if (!SCHEMES.includes(u.protocol))
    throw new PlanInfoError("PLAN_INFO", `unsupported URL scheme ${u.protocol} in ${raw}`);
  const param = u.searchParams.get("checksum");
  u.searchParams.delete("checksum");
  if (param === null) {
    if (mustHaveChecksum) throw new PlanInfoError("CHECKSUM", `missing checksum query parameter in ${raw}`);
    return { url: u.toString(), checksum: null };
  }
  const m = /^(md5|sha1|sha256|sha384|sha512):([0-9a-fA-F]+)$/.exec(param);
  const algorithm = m?.[1] as ChecksumAlgorithm | undefined;
  if (!m || !algorithm || m[2].length !== HEX_LENGTH[algorithm])
    throw new PlanInfoError(
      "CHECKSUM",
      `invalid checksum ${JSON.stringify(param)}: use sha256:<64 hex>, sha384:<96 hex> or sha512:<128 hex>`,
    );
  if (WEAK.has(algorithm) && !allowWeak)
    throw new PlanInfoError(
      "CHECKSUM",
      `weak checksum ${algorithm} in ${raw}: use sha256, sha384 or sha512, or set ${WEAK_CHECKSUMS_SETTING}=true to accept md5 and sha1 (the digest is still checked)`,
    );
  return { url: u.toString(), checksum: { algorithm, hex: m[2].toLowerCase() } };
}
