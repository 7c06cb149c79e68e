import { createHash } from "node:crypto";
import type { ChecksummedUrl } from "@chaind/core/checksummed-url";
import { goPlatform } from "@chaind/core/go-platform";
import type { Logger } from "@chaind/core/logger";
import { binaryForPlatform, parsePlanDocument, planInfoSource } from "@chaind/core/plan-info";
import { PlanInfoError } from "@chaind/core/plan-info-error";
import { VisorError } from "../errors/visor-error.js";
import { withChecksumFromFile } from "./checksum-file-fetch.js";
import { type FetchPolicy, readUrl } from "./url-fetch.js";

const MAX_PLAN_DOC_BYTES = 1024 * 1024;

/** An artifact named by Plan.info, with the key it was found under. */
export interface PlanArtifact extends ChecksummedUrl {
  /** This machine's Go `os/arch`, or `any` when that entry was used; artifact signatures name it. */
  platform: string;
}

/** Core's plan-info refusals as visor's errors, so they print as one line and keep their code. */
function asVisorError(e: unknown): unknown {
  return e instanceof PlanInfoError ? new VisorError(e.code, e.message) : e;
}

async function fetchPlanDoc(
  named: ChecksummedUrl,
  policy: FetchPolicy,
  allowWeak: boolean,
): Promise<Record<string, string>> {
  const src = await withChecksumFromFile(named, { policy, allowWeak });
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
  return parsePlanDocument(buf.toString("utf8"), `plan info at ${src.url}`);
}

/** The artifact for this machine named by Plan.info (inline JSON, or a URL to such a document). */
export async function artifactForPlan(
  info: string,
  opts: { mustHaveChecksum: boolean; allowWeakChecksums?: boolean; policy: FetchPolicy },
  deps: { logger: Logger },
): Promise<PlanArtifact> {
  try {
    const src = planInfoSource(info, opts);
    let binaries = src.kind === "inline" ? src.binaries : null;
    let source = "plan info";
    if (src.kind === "document") {
      source = src.document.url;
      deps.logger.info("fetching plan info document", { url: source });
      binaries = await fetchPlanDoc(src.document, opts.policy, opts.allowWeakChecksums ?? false);
    }
    const artifact = binaryForPlatform(binaries!, goPlatform(), { ...opts, source });
    const resolved = await withChecksumFromFile(artifact, {
      policy: opts.policy,
      allowWeak: opts.allowWeakChecksums ?? false,
    });
    return { ...resolved, platform: artifact.platform };
  } catch (e) {
    throw asVisorError(e);
  }
}
