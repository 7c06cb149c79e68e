import type { Logger } from "../../node/src/logging/logger.js";
import { type ArtifactUrl, parseArtifactUrl } from "./artifact-url.js";
import { goPlatform } from "./go-platform.js";
import { VisorError } from "./visor-error.js";

const MAX_PLAN_DOC_BYTES = 1024 * 1024;

function binariesOf(doc: unknown, source: string): Record<string, string> {
  const b = (doc as { binaries?: unknown } | null)?.binaries;
  if (!b || typeof b !== "object" || Array.isArray(b))
    throw new VisorError("PLAN_INFO", `${source}: expected {"binaries": {"<os>/<arch>": "<url>"}}`);
  for (const [k, v] of Object.entries(b))
    if (typeof v !== "string")
      throw new VisorError("PLAN_INFO", `${source}: binaries.${k} must be a URL string`);
  return b as Record<string, string>;
}

async function fetchPlanDoc(src: ArtifactUrl): Promise<unknown> {
  let text: string;
  try {
    const res = await fetch(src.url, { signal: AbortSignal.timeout(30_000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const buf = Buffer.from(await res.arrayBuffer());
    if (buf.length > MAX_PLAN_DOC_BYTES) throw new Error(`larger than ${MAX_PLAN_DOC_BYTES} bytes`);
    if (src.checksum) {
      const { createHash } = await import("node:crypto");
      const got = createHash(src.checksum.algorithm).update(buf).digest("hex");
      if (got !== src.checksum.hex)
        throw new VisorError(
          "CHECKSUM",
          `checksum mismatch for ${src.url}: expected ${src.checksum.hex}, got ${got}`,
        );
    }
    text = buf.toString("utf8");
  } catch (e) {
    if (e instanceof VisorError) throw e;
    throw new VisorError("PLAN_INFO", `cannot fetch plan info from ${src.url}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new VisorError("PLAN_INFO", `plan info at ${src.url} is not JSON: ${(e as Error).message}`);
  }
}

/**
 * The artifact for this machine named by Plan.info: JSON `{"binaries": {...}}`, or a URL to such a document.
 * Only this platform's entry (else `any`) is looked at, so a bad entry for another platform breaks nothing.
 */
export async function artifactForPlan(
  info: string,
  opts: { mustHaveChecksum: boolean },
  deps: { logger: Logger },
): Promise<ArtifactUrl> {
  const text = info.trim();
  if (!text) throw new VisorError("PLAN_INFO", "plan info is empty: no binary to download");
  let doc: unknown;
  let source = "plan info";
  if (text.startsWith("{")) {
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new VisorError("PLAN_INFO", `plan info is not valid JSON: ${(e as Error).message}`);
    }
  } else {
    const src = parseArtifactUrl(text, opts.mustHaveChecksum);
    deps.logger.info("fetching plan info document", { url: src.url });
    doc = await fetchPlanDoc(src);
    source = src.url;
  }
  const binaries = binariesOf(doc, source);
  const platform = goPlatform();
  const url = binaries[platform] ?? binaries.any;
  if (!url)
    throw new VisorError(
      "PLAN_INFO",
      `${source} has no binary for ${platform} (nor "any"); it lists: ${Object.keys(binaries).join(", ") || "nothing"}`,
    );
  return parseArtifactUrl(url, opts.mustHaveChecksum);
}
