import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { verifyArtifactSignature } from "../artifacts/artifact-signature.js";
import { installedByVisor, readSource, sourceDiffers } from "../artifacts/artifact-source.js";
import type { PlanArtifact } from "../artifacts/plan-info.js";
import { resolveArtifact, STAGED_ARTIFACT } from "../artifacts/upgrade-binary.js";
import { openUrl } from "../artifacts/url-fetch.js";
import type { VisorConfig } from "../config/visor-config.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { existingAncestor, lackOfSpace } from "../host/disk-space.js";
import { lackOfBackupSpace } from "./data-backup.js";
import type { PrefetchOutcome } from "./prefetch-outcome.js";

/** What the halt of a known plan will find, checked before it comes. */
export interface ReadinessCheck {
  /**
   * Where the halt will take the binary from: `installed` (upgrades/<plan>), `prefetched` (prefetch/<plan>),
   * `prefetching` (the pre-fetch is under way: what it finds is the check), `download` (Plan.info's artifact,
   * which its server serves now), or `none`.
   */
  binary: "installed" | "prefetched" | "prefetching" | "download" | "none";
  /**
   * The artifact's signature under VISOR_TRUSTED_KEYS: `checked` (when it was fetched, or now against the
   * SHA-256 Plan.info names), `failed` (see problems), `at_halt` (checked once the halt has the bytes: the
   * checksum is not SHA-256, or the record does not say), `unchecked` (a binary visor fetched before the keys
   * were set, used as is), or `not_required` (no keys; or a binary the operator installed, used as is).
   */
  signature: "checked" | "failed" | "at_halt" | "unchecked" | "not_required";
  /** Everything that will make the halt fail, one sentence each; empty when the plan is ready. */
  problems: string[];
}

/** Reading this much of the artifact proves the server serves it; the download itself is the halt's. */
const PROBE_TIMEOUT_MS = 30_000;

/** Opens the artifact's URL and closes it: whether it is served now, and its size when the server says. */
async function probeArtifact(artifact: PlanArtifact, config: VisorConfig): Promise<number | null> {
  const opened = await openUrl(artifact.url, config, {
    maxBytes: config.maxDownloadBytes,
    limitName: "VISOR_MAX_DOWNLOAD_BYTES",
    signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
  });
  opened.body.destroy();
  return opened.total;
}

/**
 * Checks what the halt of `plan` will need, without installing anything: a binary installed or pre-fetched for
 * this artifact, or one Plan.info names for this platform that its server serves now; its signature, when
 * VISOR_TRUSTED_KEYS is set and the checksum is SHA-256 (what a signature signs); room for the download and for
 * the data backup. The same rules as the halt's (ensureUpgradeBinary, backupData), so what fails here fails there.
 * `prefetch`: the state of this plan's pre-fetch, when one runs: it downloads and verifies the artifact, so it
 * stands for the probe and the signature check (the server sees one download, not two).
 */
export async function checkReadiness(
  plan: UpgradePlan,
  ctx: {
    config: VisorConfig;
    layout: VisorLayout;
    logger: Logger;
    prefetch?: PrefetchOutcome;
  },
): Promise<ReadinessCheck> {
  const { config, layout, logger } = ctx;
  const keys = config.trustedKeys.length > 0;
  const problems: string[] = [];
  const result = (binary: ReadinessCheck["binary"], signature: ReadinessCheck["signature"]) => {
    if (!config.unsafeSkipBackup) {
      const lack = lackOfBackupSpace(layout.dataDir, config.dataBackupDir);
      if (lack) problems.push(lack);
    }
    return { binary, signature, problems };
  };
  const none = keys ? "at_halt" : "not_required";
  const recorded = (folder: string, otherwise: "at_halt" | "unchecked") =>
    !keys ? "not_required" : readSource(folder)?.signature_checked ? "checked" : otherwise;
  let dir: string;
  try {
    dir = layout.upgradeDir(plan.name);
  } catch (e) {
    problems.push((e as Error).message);
    return result("none", none);
  }
  const bin = layout.binaryIn(dir);
  const installed = existsSync(bin);
  if (installed && !(await installedByVisor(dir, bin))) return result("installed", "not_required");
  const staged = layout.prefetchDirOf(plan.name);
  const hasStaged = existsSync(join(staged, STAGED_ARTIFACT));
  if (!installed && !hasStaged && !config.allowDownloadBinaries) {
    problems.push(`binary not present, downloading disabled: expected ${bin}`);
    return result("none", none);
  }
  let artifact: PlanArtifact;
  try {
    artifact = await resolveArtifact(plan, config, { logger });
  } catch (e) {
    problems.push((e as Error).message);
    return result("none", none);
  }
  if (installed && !sourceDiffers(dir, artifact)) return result("installed", recorded(dir, "unchecked"));
  const prefetch = ctx.prefetch;
  if (hasStaged && !sourceDiffers(staged, artifact) && prefetch?.state !== "failed")
    return result("prefetched", recorded(staged, "at_halt"));
  if (!config.allowDownloadBinaries) {
    problems.push(`binary not present, downloading disabled: expected ${bin}`);
    return result("none", none);
  }
  // The halt downloads again, with the same outcome unless the release is fixed meanwhile.
  if (prefetch?.state === "failed") {
    problems.push(`its pre-fetch failed: ${prefetch.error}`);
    return result("download", none);
  }
  if (prefetch) return result("prefetching", none);
  let size: number | null = null;
  try {
    size = await probeArtifact(artifact, config);
  } catch (e) {
    problems.push(`cannot download ${artifact.url}: ${(e as Error).message}`);
  }
  // The download and what it unpacks to, side by side in the staging folder.
  const lack = size === null ? null : lackOfSpace(existingAncestor(layout.upgradesDir), 2 * size);
  if (lack) problems.push(`the download will not fit: ${lack}`);
  let signature: ReadinessCheck["signature"] = "not_required";
  if (keys && artifact.checksum?.algorithm === "sha256") {
    try {
      await verifyArtifactSignature({ artifact, plan: plan.name, sha256: artifact.checksum.hex }, config);
      signature = "checked";
    } catch (e) {
      problems.push((e as Error).message);
      signature = "failed";
    }
  } else if (keys) signature = "at_halt";
  return result("download", signature);
}
