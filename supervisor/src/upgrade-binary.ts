import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../node/src/logging/logger.js";
import { installArtifact } from "./artifact-install.js";
import { verifyArtifactSignature } from "./artifact-signature.js";
import { crashPoint } from "./crash-point.js";
import { DEFAULT_DOWNLOAD, downloadFile } from "./downloader.js";
import { artifactForPlan } from "./plan-info.js";
import type { UpgradePlan } from "./upgrade-info.js";
import type { VisorConfig } from "./visor-config.js";
import { VisorError } from "./visor-error.js";
import type { VisorLayout } from "./visor-layout.js";

/** Marks an upgrade folder visor fetched ahead of the halt, so a cancelled plan's folder may be removed. */
export const PREFETCH_MARKER = ".prefetched";

export interface FetchProgress {
  onProgress?: (received: number, total: number | null) => void;
}

/**
 * Makes sure upgrades/<plan>/bin/<name> exists: present (operator-provided or pre-fetched) it is used as is;
 * otherwise it is downloaded into a staging folder, verified (checksum, optional signature), unpacked, and the
 * staging folder renamed into place, so the upgrade folder either holds a verified binary or does not exist.
 */
export async function ensureUpgradeBinary(
  plan: UpgradePlan,
  layout: VisorLayout,
  config: VisorConfig,
  deps: { logger: Logger } & FetchProgress,
  opts: { prefetch?: boolean } = {},
): Promise<string> {
  const dir = layout.upgradeDir(plan.name);
  const bin = layout.binaryIn(dir);
  if (existsSync(bin)) return bin;
  if (!config.allowDownloadBinaries)
    throw new VisorError("BINARY_MISSING", `binary not present, downloading disabled: expected ${bin}`);
  if (existsSync(dir))
    throw new VisorError(
      "BINARY_MISSING",
      `upgrade folder ${dir} exists without bin/${config.name}: refusing to overwrite it`,
    );
  const artifact = await artifactForPlan(
    plan.info,
    { mustHaveChecksum: config.downloadMustHaveChecksum, policy: config },
    deps,
  );
  mkdirSync(layout.upgradesDir, { recursive: true });
  // Unique per call: a pre-fetch still in flight at the halt must not share a folder with the upgrade's fetch.
  const staging = join(
    layout.upgradesDir,
    `.staging-${layout.planDirName(plan.name)}-${process.pid}-${randomUUID()}`,
  );
  mkdirSync(staging, { recursive: true });
  try {
    deps.logger.info("downloading upgrade binary", { plan: plan.name, url: artifact.url });
    const file = join(staging, "download");
    const got = await downloadFile(
      artifact,
      file,
      {
        ...DEFAULT_DOWNLOAD,
        stallTimeoutMs: config.downloadStallTimeoutMs,
        onProgress: deps.onProgress,
        policy: config,
      },
      deps,
    );
    deps.logger.info("download verified", {
      plan: plan.name,
      bytes: got.bytes,
      checksum: artifact.checksum ? `${artifact.checksum.algorithm}:${artifact.checksum.hex}` : "none",
    });
    await verifyArtifactSignature({ artifact, plan: plan.name, sha256: got.sha256 }, config);
    await installArtifact(file, staging, config.name);
    if (opts.prefetch) writeFileSync(join(staging, PREFETCH_MARKER), `${plan.name}\n`);
    crashPoint("extract");
    // Another fetch of the same plan may have finished first: its verified binary is as good as ours.
    if (existsSync(bin)) return bin;
    renameSync(staging, dir);
    return bin;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/** Staging folders left by a visor that died mid-download are never used: remove them. */
export function cleanStaging(layout: VisorLayout): void {
  if (!existsSync(layout.upgradesDir)) return;
  for (const f of readdirSync(layout.upgradesDir))
    if (f.startsWith(".staging-")) rmSync(join(layout.upgradesDir, f), { recursive: true, force: true });
}
