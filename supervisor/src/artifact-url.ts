import { VisorError } from "./visor-error.js";

export interface Checksum {
  algorithm: "sha256" | "sha512";
  hex: string;
}

export interface ArtifactUrl {
  /** The URL to fetch, without visor's `checksum` parameter. */
  url: string;
  checksum: Checksum | null;
}

/** Splits `<url>?checksum=sha256:<hex>` (go-getter's form) into the URL and the expected digest. */
export function parseArtifactUrl(raw: string, mustHaveChecksum: boolean): ArtifactUrl {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new VisorError("PLAN_INFO", `invalid URL ${JSON.stringify(raw)}`);
  }
  if (!["http:", "https:", "file:"].includes(u.protocol))
    throw new VisorError("PLAN_INFO", `unsupported URL scheme ${u.protocol} in ${raw}`);
  const param = u.searchParams.get("checksum");
  u.searchParams.delete("checksum");
  if (param === null) {
    if (mustHaveChecksum) throw new VisorError("CHECKSUM", `missing checksum query parameter in ${raw}`);
    return { url: u.toString(), checksum: null };
  }
  const m = /^(sha256|sha512):([0-9a-fA-F]+)$/.exec(param);
  const want = m?.[1] === "sha256" ? 64 : 128;
  if (!m || m[2].length !== want)
    throw new VisorError(
      "CHECKSUM",
      `invalid checksum ${JSON.stringify(param)}: use sha256:<64 hex> or sha512:<128 hex>`,
    );
  return {
    url: u.toString(),
    checksum: { algorithm: m[1] as Checksum["algorithm"], hex: m[2].toLowerCase() },
  };
}
