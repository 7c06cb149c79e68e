import { PlanInfoError } from "./plan-info-error.js";

export interface Checksum {
  algorithm: "sha256" | "sha512";
  hex: string;
}

export interface ChecksummedUrl {
  /** The URL to fetch, without the `checksum` parameter. */
  url: string;
  checksum: Checksum | null;
}

const SCHEMES = ["http:", "https:", "file:"];

/** Splits `<url>?checksum=sha256:<hex>` (go-getter's form) into the URL and the expected digest. */
export function parseChecksummedUrl(raw: string, mustHaveChecksum: boolean): ChecksummedUrl {
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
  const m = /^(sha256|sha512):([0-9a-fA-F]+)$/.exec(param);
  const want = m?.[1] === "sha256" ? 64 : 128;
  if (!m || m[2].length !== want)
    throw new PlanInfoError(
      "CHECKSUM",
      `invalid checksum ${JSON.stringify(param)}: use sha256:<64 hex> or sha512:<128 hex>`,
    );
  return {
    url: u.toString(),
    checksum: { algorithm: m[1] as Checksum["algorithm"], hex: m[2].toLowerCase() },
  };
}
