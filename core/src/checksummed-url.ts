import { PlanInfoError } from "./plan-info-error.js";

export interface Checksum {
  algorithm: ChecksumAlgorithm;
  hex: string;
}

/** go-getter's checksum types, by the length of their hex digest. */
const HEX_LENGTH = { md5: 32, sha1: 40, sha256: 64, sha384: 96, sha512: 128 } as const;
export type ChecksumAlgorithm = keyof typeof HEX_LENGTH;

/** The checksum type a hex digest of this length is, as go-getter infers it when none is named. */
export function algorithmOfHex(hex: string): ChecksumAlgorithm | null {
  if (!/^[0-9a-fA-F]+$/.test(hex)) return null;
  const found = Object.entries(HEX_LENGTH).find(([, n]) => n === hex.length);
  return found ? (found[0] as ChecksumAlgorithm) : null;
}

/** Whether a digest of `hex` is one of `algorithm`. */
export const isChecksumOf = (algorithm: string, hex: string): algorithm is ChecksumAlgorithm =>
  Object.hasOwn(HEX_LENGTH, algorithm) && algorithmOfHex(hex) === algorithm;

/** Broken as digests (collisions can be made): taken only where the operator says so. */
const WEAK = new Set<ChecksumAlgorithm>(["md5", "sha1"]);
export const WEAK_CHECKSUMS_SETTING = "VISOR_ALLOW_WEAK_CHECKSUMS";

/** Why a weak checksum is refused, naming the setting that takes it; `where` says where it was found. */
export function refuseWeak(algorithm: ChecksumAlgorithm, where: string, allowWeak: boolean): void {
  if (WEAK.has(algorithm) && !allowWeak)
    throw new PlanInfoError(
      "CHECKSUM",
      `weak checksum ${algorithm} in ${where}: use sha256, sha384 or sha512, or set ${WEAK_CHECKSUMS_SETTING}=true to accept md5 and sha1 (the digest is still checked)`,
    );
}

export interface ChecksummedUrl {
  /** The URL to fetch, without the `checksum` parameter. */
  url: string;
  checksum: Checksum | null;
  /**
   * `?checksum=file:<url>`: the digest is the one this checksum file lists for the artifact, read by the
   * supervisor before it downloads (until then `checksum` is null).
   */
  checksumFile?: string;
}

const URL_SCHEMES = ["http:", "https:", "file:"];

/**
 * Splits `<url>?checksum=<type>:<hex>`, `<url>?checksum=<hex>` (the type told by its length) or
 * `<url>?checksum=file:<checksum file url>` (go-getter's forms) into the URL and the expected digest, or the
 * checksum file to read it from. md5 and sha1 are refused unless `allowWeak`.
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
  if (!URL_SCHEMES.includes(u.protocol))
    throw new PlanInfoError("PLAN_INFO", `unsupported URL scheme ${u.protocol} in ${raw}`);
  const param = u.searchParams.get("checksum");
  u.searchParams.delete("checksum");
  if (param === null) {
    if (mustHaveChecksum) throw new PlanInfoError("CHECKSUM", `missing checksum query parameter in ${raw}`);
    return { url: u.toString(), checksum: null };
  }
  if (param.startsWith("file:"))
    return { url: u.toString(), checksum: null, checksumFile: checksumFileUrl(param, raw) };
  const typed = /^(md5|sha1|sha256|sha384|sha512):([0-9a-fA-F]+)$/.exec(param);
  const hex = typed ? typed[2] : param;
  const algorithm = typed ? typed[1] : algorithmOfHex(param);
  if (!algorithm || !isChecksumOf(algorithm, hex))
    throw new PlanInfoError(
      "CHECKSUM",
      `invalid checksum ${JSON.stringify(param)}: use sha256:<64 hex>, sha384:<96 hex> or sha512:<128 hex>`,
    );
  refuseWeak(algorithm, raw, allowWeak);
  return { url: u.toString(), checksum: { algorithm, hex: hex.toLowerCase() } };
}

/** The URL of `file:<url>`, of a scheme the artifact itself could have. */
function checksumFileUrl(param: string, raw: string): string {
  const inner = param.slice("file:".length);
  let u: URL;
  try {
    u = new URL(inner);
  } catch {
    throw new PlanInfoError("CHECKSUM", `invalid checksum file URL ${JSON.stringify(inner)} in ${raw}`);
  }
  if (!URL_SCHEMES.includes(u.protocol))
    throw new PlanInfoError(
      "CHECKSUM",
      `unsupported URL scheme ${u.protocol} for the checksum file in ${raw}`,
    );
  return u.toString();
}
