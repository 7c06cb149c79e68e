import { createHash } from "node:crypto";
import type { Logger } from "../../node/src/logging/logger.js";
import { type ArtifactUrl, parseArtifactUrl } from "./artifact-url.js";
import { goPlatform } from "./go-platform.js";
import { type FetchPolicy, readUrl } from "./url-fetch.js";
import { VisorError } from "./visor-error.js";

const MAX_PLAN_DOC_BYTES = 1024 * 1024;

/** An artifact named by Plan.info, with the key it was found under. */
export interface PlanArtifact extends ArtifactUrl {
  /** This machine's Go `os/arch`, or `any` when that entry was used; artifact signatures name it. */
  platform: string;
}

function binariesOf(doc: unknown, source: string): Record<string, string> {
  const b = (doc as { binaries?: unknown } | null)?.binaries;
  if (!b || typeof b !== "object" || Array.isArray(b))
    throw new VisorError("PLAN_INFO", `${source}: expected {"binaries": {"<os>/<arch>": "<url>"}}`);
  for (const [k, v] of Object.entries(b))
    if (typeof v !== "string")
      throw new VisorError("PLAN_INFO", `${source}: binaries.${k} must be a URL string`);
  return b as Record<string, string>;
}

async function fetchPlanDoc(src: ArtifactUrl, policy: FetchPolicy): Promise<unknown> {
  let buf: Buffer;
  try {
    buf = await readUrl(src.url, policy, {
      maxBytes: MAX_PLAN_DOC_BYTES,
      limitName: "the limit for plan-info documents",
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new VisorError("PLAN_INFO", `cannot fetch plan info from ${src.url}: ${(e as Error).message}`);
  }
  if (src.checksum) {
    const got = createHash(src.checksum.algorithm).update(buf).digest("hex");
    if (got !== src.checksum.hex)
      throw new VisorError(
        "CHECKSUM",
        `checksum mismatch for ${src.url}: expected ${src.checksum.hex}, got ${got}`,
      );
  }
  try {
    return JSON.parse(buf.toString("utf8"));
  } catch (e) {
    throw new VisorError("PLAN_INFO", `plan info at ${src.url} is not JSON: ${(e as Error).message}`);
  }
}

/** Plan.info written out as JSON, rather than a URL to such a document. */
export function isInlinePlanInfo(info: string): boolean {
  return info.trim().startsWith("{");
}

/**
 * The artifact for this machine named by Plan.info: JSON `{"binaries": {...}}`, or a URL to such a document.
 * Only this platform's entry (else `any`) is looked at, so a bad entry for another platform breaks nothing.
 */
export async function artifactForPlan(
  info: string,
  opts: { mustHaveChecksum: boolean; policy: FetchPolicy },
  deps: { logger: Logger },
): Promise<PlanArtifact> {
  const text = info.trim();
  if (!text) throw new VisorError("PLAN_INFO", "plan info is empty: no binary to download");
  let doc: unknown;
  let source = "plan info";
  if (isInlinePlanInfo(text)) {
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new VisorError("PLAN_INFO", `plan info is not valid JSON: ${(e as Error).message}`);
    }
  } else {
    const src = parseArtifactUrl(text, opts.mustHaveChecksum);
    source = src.url;
    deps.logger.info("fetching plan info document", { url: source });
    doc = await fetchPlanDoc(src, opts.policy);
  }
  const binaries = binariesOf(doc, source);
  const own = goPlatform();
  const platform = Object.hasOwn(binaries, own) ? own : Object.hasOwn(binaries, "any") ? "any" : null;
  if (!platform)
    throw new VisorError(
      "PLAN_INFO",
      `${source} has no binary for ${own} (nor "any"); it lists: ${Object.keys(binaries).join(", ") || "nothing"}`,
    );
  return { ...parseArtifactUrl(binaries[platform], opts.mustHaveChecksum), platform };
}
