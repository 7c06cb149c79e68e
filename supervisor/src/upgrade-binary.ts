import { createHash, randomUUID } from "node:crypto";
import {
  copyFileSync,
  createReadStream,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join } from "node:path";
import type { Logger } from "../../node/src/logging/logger.js";
import { installArtifact } from "./artifact-install.js";
import { verifyArtifactSignature } from "./artifact-signature.js";
import {
  type ArtifactSource,
  fetchedByVisor,
  readSource,
  sourceDiffers,
  sourceOf,
  writeSource,
} from "./artifact-source.js";
import { crashPoint } from "./crash-point.js";
import { DEFAULT_DOWNLOAD, downloadFile } from "./downloader.js";
import { artifactForPlan, type PlanArtifact } from "./plan-info.js";
import type { UpgradePlan } from "./upgrade-info.js";
import type { VisorConfig } from "./visor-config.js";
import { VisorError } from "./visor-error.js";
import type { VisorLayout } from "./visor-layout.js";

/** The downloaded file in a pre-fetch folder (prefetch/<plan>), beside its `.visor-source.json`. */
const STAGED_ARTIFACT = "artifact";

export interface FetchProgress {
  onProgress?: (received: number, total: number | null) => void;
}

type Deps = { logger: Logger } & FetchProgress;

function resolveArtifact(plan: UpgradePlan, config: VisorConfig, deps: Deps): Promise<PlanArtifact> {
  return artifactForPlan(
    plan.info,
    { mustHaveChecksum: config.downloadMustHaveChecksum, policy: config },
    deps,
  );
}

/**
 * The record of a fetched artifact, once its signature is checked (VISOR_TRUSTED_KEYS): the one place that
 * check is made, for downloads and pre-fetches alike.
 */
async function verifiedSource(
  plan: UpgradePlan,
  artifact: PlanArtifact,
  got: { sha256: string },
  config: VisorConfig,
): Promise<ArtifactSource> {
  await verifyArtifactSignature({ artifact, plan: plan.name, sha256: got.sha256 }, config);
  return sourceOf(plan, artifact, got.sha256);
}

async function download(
  plan: UpgradePlan,
  artifact: PlanArtifact,
  file: string,
  config: VisorConfig,
  deps: Deps,
): Promise<{ sha256: string }> {
  deps.logger.info("downloading upgrade binary", { plan: plan.name, url: artifact.url });
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
  return got;
}

async function digestOf(file: string, algorithm: string): Promise<string> {
  const h = createHash(algorithm);
  for await (const chunk of createReadStream(file)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/**
 * A pre-fetched artifact, brought into an install folder and checked again: its bytes against the checksum
 * upgrade-info.json names (or, when it names none, against the digest recorded when it was fetched).
 */
async function fromStaged(staged: string, file: string, artifact: PlanArtifact): Promise<{ sha256: string }> {
  const src = join(staged, STAGED_ARTIFACT);
  try {
    linkSync(src, file);
  } catch {
    copyFileSync(src, file);
  }
  const sha256 = await digestOf(file, "sha256");
  const want = artifact.checksum ?? { algorithm: "sha256" as const, hex: readSource(staged)?.sha256 ?? "" };
  const got = want.algorithm === "sha256" ? sha256 : await digestOf(file, want.algorithm);
  if (got !== want.hex)
    throw new VisorError(
      "CHECKSUM",
      `checksum mismatch for the pre-fetched ${artifact.url}: expected ${want.algorithm}:${want.hex}, got ${want.algorithm}:${got}`,
    );
  return { sha256 };
}

/**
 * Installs `artifact` into upgrades/<plan>: downloaded now, or taken from a pre-fetch folder, verified
 * (checksum, optional signature), unpacked in a staging folder with a record of its source, and renamed into
 * place, so the upgrade folder either holds a verified binary or does not exist.
 */
async function install(
  plan: UpgradePlan,
  artifact: PlanArtifact,
  layout: VisorLayout,
  config: VisorConfig,
  deps: Deps,
  staged: string | null,
): Promise<string> {
  const dir = layout.upgradeDir(plan.name);
  const bin = layout.binaryIn(dir);
  mkdirSync(layout.upgradesDir, { recursive: true });
  // Unique per call: two fetches of one plan (a prepare-upgrade while visor runs) never share a folder.
  const staging = join(
    layout.upgradesDir,
    `.staging-${layout.planDirName(plan.name)}-${process.pid}-${randomUUID()}`,
  );
  mkdirSync(staging, { recursive: true });
  try {
    const file = join(staging, "download");
    const got = staged
      ? await fromStaged(staged, file, artifact)
      : await download(plan, artifact, file, config, deps);
    const source = await verifiedSource(plan, artifact, got, config);
    await installArtifact(file, staging, config.name);
    // Written after unpacking, so an archive cannot bring a record of its own.
    writeSource(staging, source);
    crashPoint("extract");
    // Another fetch of the same plan may have finished first: its verified binary is as good as ours.
    if (existsSync(bin)) return bin;
    renameSync(staging, dir);
    return bin;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Makes sure upgrades/<plan>/bin/<name> holds the binary `plan` (as upgrade-info.json gives it at the halt)
 * names. A binary put there by the operator (no record) is used as is, as cosmovisor does. One visor fetched
 * is used only if it came from the artifact Plan.info names now; so is a pre-fetched artifact, whose bytes are
 * checked again before it is installed. Anything else is set aside (kept, renamed) and the right artifact is
 * downloaded: whatever was learned before the halt is only a cache.
 */
export async function ensureUpgradeBinary(
  plan: UpgradePlan,
  layout: VisorLayout,
  config: VisorConfig,
  deps: Deps,
): Promise<string> {
  const dir = layout.upgradeDir(plan.name);
  const bin = layout.binaryIn(dir);
  const installed = existsSync(bin);
  if (installed && !fetchedByVisor(dir)) return bin;
  const staged = layout.prefetchDirOf(plan.name);
  const hasStaged = existsSync(join(staged, STAGED_ARTIFACT));
  if (!installed && !hasStaged && !config.allowDownloadBinaries)
    throw new VisorError("BINARY_MISSING", `binary not present, downloading disabled: expected ${bin}`);
  if (!installed && existsSync(dir))
    throw new VisorError(
      "BINARY_MISSING",
      `upgrade folder ${dir} exists without bin/${config.name}: refusing to overwrite it`,
    );
  const artifact = await resolveArtifact(plan, config, deps).catch((e: VisorError) => {
    if (!installed && !hasStaged) throw e;
    throw new VisorError(
      e.code ?? "PLAN_INFO",
      `${e.message} (needed to check the binary fetched earlier for ${plan.name} against upgrade-info.json; to run one you trust without that check: visor add-upgrade ${plan.name} <binary> --force)`,
    );
  });
  const setAside = (folder: string, why: string) =>
    deps.logger.warn("not using a binary fetched earlier: it is not what upgrade-info.json names", {
      plan: plan.name,
      why,
      set_aside: layout.setAside(folder),
    });
  if (installed) {
    const differs = sourceDiffers(dir, artifact);
    if (!differs) return bin;
    setAside(dir, differs);
  }
  if (hasStaged) {
    const differs = sourceDiffers(staged, artifact);
    if (differs) setAside(staged, differs);
    else {
      try {
        const done = await install(plan, artifact, layout, config, deps, staged);
        rmSync(staged, { recursive: true, force: true });
        deps.logger.info("installed the pre-fetched binary", { plan: plan.name });
        return done;
      } catch (e) {
        if ((e as VisorError).code !== "CHECKSUM") throw e;
        setAside(staged, (e as Error).message);
      }
    }
  }
  if (!config.allowDownloadBinaries)
    throw new VisorError("BINARY_MISSING", `binary not present, downloading disabled: expected ${bin}`);
  return install(plan, artifact, layout, config, deps, null);
}

/**
 * Pre-fetch: downloads the artifact a plan learned from the node's API names into prefetch/<plan>, verified
 * (checksum, optional signature) and recorded, never into upgrades/<plan>: only the halt installs it, once
 * upgrade-info.json confirms it (see ensureUpgradeBinary). A staged artifact of another source is set aside.
 * Answers whether anything was downloaded.
 */
export async function stageUpgradeArtifact(
  plan: UpgradePlan,
  layout: VisorLayout,
  config: VisorConfig,
  deps: Deps,
): Promise<"downloaded" | "ready"> {
  const artifact = await resolveArtifact(plan, config, deps);
  const dir = layout.upgradeDir(plan.name);
  if (existsSync(layout.binaryIn(dir)) && (!fetchedByVisor(dir) || !sourceDiffers(dir, artifact)))
    return "ready";
  const staged = layout.prefetchDirOf(plan.name);
  if (existsSync(join(staged, STAGED_ARTIFACT))) {
    const differs = sourceDiffers(staged, artifact);
    if (!differs) return "ready";
    deps.logger.warn("the scheduled plan now names another binary: setting the pre-fetched one aside", {
      plan: plan.name,
      why: differs,
      set_aside: layout.setAside(staged),
    });
  } else rmSync(staged, { recursive: true, force: true });
  mkdirSync(layout.prefetchDir, { recursive: true });
  const tmp = join(
    layout.prefetchDir,
    `.tmp-${layout.planDirName(plan.name)}-${process.pid}-${randomUUID()}`,
  );
  mkdirSync(tmp);
  try {
    const got = await download(plan, artifact, join(tmp, STAGED_ARTIFACT), config, deps);
    writeSource(tmp, await verifiedSource(plan, artifact, got, config));
    renameSync(tmp, staged);
    return "downloaded";
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** Leftovers of a visor that died mid-way (install and pre-fetch staging, a database snapshot) are never used. */
export function cleanStaging(layout: VisorLayout): void {
  for (const [folder, prefix] of [
    [layout.upgradesDir, ".staging-"],
    [layout.prefetchDir, ".tmp-"],
  ]) {
    if (!existsSync(folder)) continue;
    for (const f of readdirSync(folder))
      if (f.startsWith(prefix)) rmSync(join(folder, f), { recursive: true, force: true });
  }
  rmSync(layout.heightProbeDir, { recursive: true, force: true });
}
