import { randomUUID } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { join, normalize } from "node:path";
import type { Logger } from "@chaind/core/logger";
import type { VisorConfig } from "../config/visor-config.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { VisorError } from "../errors/visor-error.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { crashPoint } from "../host/crash-point.js";
import { installArtifact } from "./artifact-install.js";
import { verifyArtifactSignature } from "./artifact-signature.js";
import {
  type ArtifactSource,
  fileDigest,
  installedByVisor,
  readSource,
  sourceDiffers,
  sourceOf,
  writeSource,
} from "./artifact-source.js";
import { DEFAULT_DOWNLOAD, downloadFile } from "./downloader.js";
import { artifactForPlan, type PlanArtifact } from "./plan-info.js";
import { fileDigestOf, treeDiffers, treeOf, type UnpackedTree } from "./unpacked-tree.js";

/** The downloaded file in a pre-fetch folder (prefetch/<plan>), beside its `.visor-source.json`. */
export const STAGED_ARTIFACT = "artifact";
/** The folder of a pre-fetch folder the artifact is unpacked into, as upgrades/<plan> will hold it. */
const STAGED_UNPACKED = "unpacked";

export interface FetchProgress {
  onProgress?: (received: number, total: number | null) => void;
  /** Told when a pre-fetch's download has ended and when its bytes are verified (a rehearsal times both). */
  onStaged?: (step: "downloaded" | "verified") => void;
}

type Deps = { logger: Logger } & FetchProgress;

/** The artifact Plan.info names for this machine, under the operator's checksum settings. */
export function resolveArtifact(plan: UpgradePlan, config: VisorConfig, deps: Deps): Promise<PlanArtifact> {
  return artifactForPlan(
    plan.info,
    {
      mustHaveChecksum: config.downloadMustHaveChecksum,
      allowWeakChecksums: config.allowWeakChecksums,
      policy: config,
    },
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
  return { ...sourceOf(plan, artifact, got.sha256), signature_checked: config.trustedKeys.length > 0 };
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

/**
 * A folder of visor's own to assemble something in, closed to every other user (0700) until it is complete:
 * unpacked as root, a file keeps an archive's set-user-ID bits (and a folder its group-writable mode) until
 * installArtifact secures the tree. `open` makes it 0755 just before it is renamed into place.
 */
function privateFolder(path: string): { path: string; open: () => void } {
  mkdirSync(path, { mode: 0o700 });
  chmodSync(path, 0o700);
  return { path, open: () => chmodSync(path, 0o755) };
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
  const sha256 = await fileDigest(file);
  const want = artifact.checksum ?? { algorithm: "sha256" as const, hex: readSource(staged)?.sha256 ?? "" };
  const got = want.algorithm === "sha256" ? sha256 : await fileDigest(file, want.algorithm);
  if (got !== want.hex)
    throw new VisorError(
      "CHECKSUM",
      `checksum mismatch for the pre-fetched ${artifact.url}: expected ${want.algorithm}:${want.hex}, got ${want.algorithm}:${got}`,
    );
  return { sha256 };
}

/**
 * The pre-fetch's unpacking of the artifact whose bytes were just verified (`file`, of digest `sha256`), moved
 * into the staging folder `into` in place of `file`; its binary and the binary's digest, or null when there is
 * none to take or it no longer holds exactly what the pre-fetch recorded (the artifact is then unpacked again). It is checked once it
 * is inside the staging folder, which no other user can enter, so it cannot change between check and use.
 */
function takeUnpacked(
  staged: string,
  file: string,
  sha256: string,
  into: string,
  name: string,
  logger: Logger,
): { bin: string; sha256: string } | null {
  const recorded = readSource(staged);
  if (!recorded?.unpacked || recorded.sha256 !== sha256 || !existsSync(join(staged, STAGED_UNPACKED)))
    return null;
  const tree = join(into, `.unpacked-${randomUUID()}`);
  try {
    renameSync(join(staged, STAGED_UNPACKED), tree);
  } catch {
    return null;
  }
  const binarySha256 = fileDigestOf(recorded.unpacked, `bin/${name}`);
  const differs =
    binarySha256 === undefined ? `it holds no bin/${name}` : treeDiffers(tree, recorded.unpacked);
  if (binarySha256 === undefined || differs) {
    logger.warn("not using what the pre-fetch unpacked: unpacking the artifact again", { why: differs });
    rmSync(tree, { recursive: true, force: true });
    return null;
  }
  rmSync(file);
  for (const entry of readdirSync(tree)) renameSync(join(tree, entry), join(into, entry));
  rmSync(tree, { recursive: true });
  return { bin: normalize(join(into, "bin", name)), sha256: binarySha256 };
}

/**
 * Unpacks a pre-fetched artifact into `<dir>/unpacked` while the node still runs, so that the halt only checks
 * it (see takeUnpacked); answers what it holds, or null when it cannot be unpacked: the halt then unpacks the
 * artifact itself and reports what is wrong, as it would have without a pre-fetch.
 */
async function unpackStaged(dir: string, name: string, logger: Logger): Promise<UnpackedTree | null> {
  const into = privateFolder(join(dir, STAGED_UNPACKED));
  try {
    // A copy: installArtifact consumes its file, and a bare binary becomes bin/<name> itself.
    copyFileSync(join(dir, STAGED_ARTIFACT), join(into.path, "download"));
    await installArtifact(join(into.path, "download"), into.path, name);
    into.open();
    return treeOf(into.path);
  } catch (e) {
    rmSync(into.path, { recursive: true, force: true });
    logger.warn("could not unpack the pre-fetched artifact; the halt will unpack it", {
      err: (e as Error).message,
    });
    return null;
  }
}

/**
 * Installs `artifact` into upgrades/<plan>: downloaded now, or taken from a pre-fetch folder, verified
 * (checksum, optional signature), unpacked in a staging folder (or, pre-fetched, taken as the pre-fetch unpacked
 * it once checked file by file) with a record of its source, and renamed into place, so the upgrade folder either
 * holds a verified binary or does not exist.
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
  // Unique per call: two fetches of one plan (visor and a second visor on the same home) never share a folder.
  const staging = privateFolder(
    join(layout.upgradesDir, `.staging-${layout.planDirName(plan.name)}-${process.pid}-${randomUUID()}`),
  );
  try {
    const file = join(staging.path, "download");
    const got = staged
      ? await fromStaged(staged, file, artifact)
      : await download(plan, artifact, file, config, deps);
    const source = await verifiedSource(plan, artifact, got, config);
    const taken = staged
      ? takeUnpacked(staged, file, got.sha256, staging.path, config.name, deps.logger)
      : null;
    const unpacked = taken?.bin ?? (await installArtifact(file, staging.path, config.name));
    // Written after unpacking, so an archive cannot bring a record of its own.
    writeSource(staging.path, { ...source, binary_sha256: taken?.sha256 ?? (await fileDigest(unpacked)) });
    crashPoint("extract");
    if (existsSync(bin)) return await installedMeanwhile(plan, artifact, dir, bin);
    staging.open();
    renameSync(staging.path, dir);
    return bin;
  } finally {
    rmSync(staging.path, { recursive: true, force: true });
  }
}

/**
 * Another fetch of the same plan installed its binary first. It is used only by the rule that applies to any
 * installed binary: the operator's as is, visor's only if its record names the artifact we were installing.
 */
async function installedMeanwhile(
  plan: UpgradePlan,
  artifact: PlanArtifact,
  dir: string,
  bin: string,
): Promise<string> {
  if (!(await installedByVisor(dir, bin))) return bin;
  const differs = sourceDiffers(dir, artifact);
  if (!differs) return bin;
  throw new VisorError(
    "LAYOUT",
    `${dir} was filled meanwhile, by another fetch of ${plan.name}, with another artifact (${differs}): not using it; run visor again to check it against upgrade-info.json`,
  );
}

/**
 * Makes sure upgrades/<plan>/bin/<name> holds the binary `plan` (as upgrade-info.json gives it at the halt)
 * names. A binary put there by the operator (no record, or bytes its record does not name) is used as is, as
 * cosmovisor does. One visor fetched is used only if it came from the artifact Plan.info names now; so is a
 * pre-fetched artifact, whose bytes are checked again before it is installed. Anything else is set aside (kept,
 * renamed) and the right artifact is downloaded: whatever was learned before the halt is only a cache. The
 * folder `current` points at is never set aside (see VisorLayout.setAside): the upgrade stops instead.
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
  if (installed && !(await installedByVisor(dir, bin))) return bin;
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
      set_aside: layout.setAside(folder, why),
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
 * Pre-fetch (the pre-fetcher, and `prepare-upgrade`): downloads the artifact a plan learned from the node's API
 * names into prefetch/<plan>, verified (checksum, optional signature) and recorded, never into upgrades/<plan>:
 * only the halt installs it, once upgrade-info.json confirms it (see ensureUpgradeBinary). A staged artifact of
 * another source is set aside. Answers whether anything was downloaded, and where the binary or artifact is.
 */
export async function stageUpgradeArtifact(
  plan: UpgradePlan,
  layout: VisorLayout,
  config: VisorConfig,
  deps: Deps,
): Promise<{ state: "downloaded" | "ready"; path: string }> {
  const artifact = await resolveArtifact(plan, config, deps);
  const dir = layout.upgradeDir(plan.name);
  const bin = layout.binaryIn(dir);
  if (existsSync(bin) && (!(await installedByVisor(dir, bin)) || !sourceDiffers(dir, artifact)))
    return { state: "ready", path: bin };
  const staged = layout.prefetchDirOf(plan.name);
  const stagedFile = join(staged, STAGED_ARTIFACT);
  if (existsSync(stagedFile)) {
    const differs = sourceDiffers(staged, artifact);
    if (!differs) return { state: "ready", path: stagedFile };
    deps.logger.warn("the scheduled plan now names another binary: setting the pre-fetched one aside", {
      plan: plan.name,
      why: differs,
      set_aside: layout.setAside(staged, differs),
    });
  } else rmSync(staged, { recursive: true, force: true });
  mkdirSync(layout.prefetchDir, { recursive: true });
  const tmp = privateFolder(
    join(layout.prefetchDir, `.tmp-${layout.planDirName(plan.name)}-${process.pid}-${randomUUID()}`),
  );
  try {
    const got = await download(plan, artifact, join(tmp.path, STAGED_ARTIFACT), config, deps);
    deps.onStaged?.("downloaded");
    const source = await verifiedSource(plan, artifact, got, config);
    deps.onStaged?.("verified");
    const unpacked = await unpackStaged(tmp.path, config.name, deps.logger);
    writeSource(tmp.path, unpacked ? { ...source, unpacked } : source);
    tmp.open();
    try {
      renameSync(tmp.path, staged);
    } catch (e) {
      // Another pre-fetch of the plan (visor's, and a prepare-upgrade) finished first, with the same artifact.
      if (!existsSync(stagedFile) || sourceDiffers(staged, artifact)) throw e;
      return { state: "ready", path: stagedFile };
    }
    return { state: "downloaded", path: stagedFile };
  } finally {
    rmSync(tmp.path, { recursive: true, force: true });
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
