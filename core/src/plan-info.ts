import { type ChecksummedUrl, parseChecksummedUrl } from "./checksummed-url.js";
import { PlanInfoError } from "./plan-info-error.js";

/** Go's os/arch names as plan-info keys them, plus "any". */
const PLATFORM_KEY = /^(any|[a-z0-9]+\/[a-z0-9]+)$/;

/**
 * Plan.info as cosmovisor reads it: JSON `{"binaries": {"<os>/<arch>": "<url>?checksum=…"}}` written out, or
 * a URL to such a document.
 */
export type PlanInfoSource =
  | { kind: "inline"; binaries: Record<string, string> }
  | { kind: "document"; document: ChecksummedUrl };

/** Plan.info written out as JSON, rather than a URL to such a document. */
export function isInlinePlanInfo(info: string): boolean {
  return info.trim().startsWith("{");
}

/** The `binaries` map of a plan-info document; `source` names the document in errors. */
function planBinaries(doc: unknown, source: string): Record<string, string> {
  const b = (doc as { binaries?: unknown } | null)?.binaries;
  if (!b || typeof b !== "object" || Array.isArray(b))
    throw new PlanInfoError("PLAN_INFO", `${source}: expected {"binaries": {"<os>/<arch>": "<url>"}}`);
  for (const [k, v] of Object.entries(b))
    if (typeof v !== "string")
      throw new PlanInfoError("PLAN_INFO", `${source}: binaries.${k} must be a URL string`);
  return b as Record<string, string>;
}

/** Parses JSON text of a plan-info document into its `binaries` map. */
export function parsePlanDocument(text: string, source: string): Record<string, string> {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new PlanInfoError("PLAN_INFO", `${source} is not valid JSON: ${(e as Error).message}`);
  }
  return planBinaries(doc, source);
}

/** What Plan.info names: inline binaries, or the URL of a document listing them. */
export function planInfoSource(
  info: string,
  opts: { mustHaveChecksum: boolean; allowWeakChecksums?: boolean },
): PlanInfoSource {
  const text = info.trim();
  if (!text) throw new PlanInfoError("PLAN_INFO", "plan info is empty: no binary to download");
  if (isInlinePlanInfo(text)) return { kind: "inline", binaries: parsePlanDocument(text, "plan info") };
  if (!URL.canParse(text))
    throw new PlanInfoError(
      "PLAN_INFO",
      `plan info is neither JSON {"binaries": …} nor the URL of such a document: ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)}`,
    );
  return {
    kind: "document",
    document: parseChecksummedUrl(text, opts.mustHaveChecksum, opts.allowWeakChecksums),
  };
}

/**
 * The entry for `platform`, else `any`. Only that entry is parsed, so a bad entry for another platform
 * breaks nothing on this one (cosmovisor behaves the same).
 */
export function binaryForPlatform(
  binaries: Record<string, string>,
  platform: string,
  opts: { source: string; mustHaveChecksum: boolean; allowWeakChecksums?: boolean },
): ChecksummedUrl & { platform: string } {
  const key = Object.hasOwn(binaries, platform) ? platform : Object.hasOwn(binaries, "any") ? "any" : null;
  if (!key)
    throw new PlanInfoError(
      "PLAN_INFO",
      `${opts.source} has no binary for ${platform} (nor "any"); it lists: ${Object.keys(binaries).join(", ") || "nothing"}`,
    );
  return {
    ...parseChecksummedUrl(binaries[key], opts.mustHaveChecksum, opts.allowWeakChecksums),
    platform: key,
  };
}

/**
 * Checks every entry of Plan.info before it goes on chain, as a supervisor will read it: platform keys
 * os/arch or any, URLs of a scheme a supervisor fetches, checksums well formed (and present unless not
 * required). A document URL is checked as a URL; its contents are read only by the supervisor.
 */
export function validatePlanInfo(info: string, opts: { requireChecksum: boolean }): void {
  const src = planInfoSource(info, { mustHaveChecksum: opts.requireChecksum });
  if (src.kind === "document") return;
  const entries = Object.entries(src.binaries);
  if (entries.length === 0) throw new PlanInfoError("PLAN_INFO", "binaries is empty");
  for (const [platform, url] of entries) {
    if (!PLATFORM_KEY.test(platform))
      throw new PlanInfoError(
        "PLAN_INFO",
        `invalid platform key ${JSON.stringify(platform)}: use os/arch (linux/amd64) or any`,
      );
    try {
      parseChecksummedUrl(url, opts.requireChecksum);
    } catch (e) {
      throw new PlanInfoError((e as PlanInfoError).code, `binaries.${platform}: ${(e as Error).message}`);
    }
  }
}
