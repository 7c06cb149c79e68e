import { createHash } from "node:crypto";
import { createReadStream, existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { type Checksum, type ChecksummedUrl, parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { isInlinePlanInfo } from "@chaind/core/plan-info";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { withoutUserInfo } from "../errors/url-redaction.js";
import type { UnpackedTree } from "./unpacked-tree.js";

/**
 * Where a binary or artifact visor fetched came from, kept beside it (`.visor-source.json`), so the halt can
 * tell whether it is what upgrade-info.json names. URLs are kept as SHA-256 digests of the URL without its user
 * information (credentials do not say which artifact it is, and a rotated password must not make a good binary
 * look foreign) and shown without credentials or query. The file is 0600.
 */
export interface ArtifactSource {
  version: 1;
  plan: string;
  /** SHA-256 of Plan.info as the plan that was fetched named it. */
  info_sha256: string;
  /** Plan.info was a URL to a JSON document: that document's URL and checksum. */
  document: RecordedUrl | null;
  /** The artifact Plan.info named for this platform. */
  artifact: RecordedUrl;
  /** SHA-256 of the bytes downloaded. */
  sha256: string;
  /**
   * SHA-256 of the installed bin/<name> (upgrade folders only): bytes that no longer match were replaced by
   * hand after visor installed them, and the record no longer describes them.
   */
  binary_sha256?: string;
  /**
   * What the artifact unpacked into, in the pre-fetch folder's unpacked/ (pre-fetch folders only): the halt
   * takes that folder when it still holds exactly this, instead of unpacking the artifact again.
   */
  unpacked?: UnpackedTree;
  /** Whether its signature was checked against VISOR_TRUSTED_KEYS (absent in records of older visors: no). */
  signature_checked?: boolean;
  fetched_at: string;
}

interface RecordedUrl {
  url_sha256: string;
  checksum: string | null;
  shown: string;
}

const SOURCE_FILE = ".visor-source.json";
/** Left by visors before this record existed in folders they pre-fetched: such a folder's source is unknown. */
const LEGACY_PREFETCH_MARKER = ".prefetched";

const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");
const checksumText = (c: Checksum | null) => (c ? `${c.algorithm}:${c.hex}` : null);

function shown(url: string): string {
  try {
    const u = withoutUserInfo(new URL(url));
    u.search = "";
    return u.toString();
  } catch {
    return "(not a URL)";
  }
}

/** The URL with no user information: what names the artifact, whoever is let in to fetch it. */
function artifactName(url: string): string {
  try {
    return withoutUserInfo(new URL(url)).toString();
  } catch {
    return url;
  }
}

function recorded(a: ChecksummedUrl): RecordedUrl {
  return {
    url_sha256: sha256(artifactName(a.url)),
    checksum: checksumText(a.checksum),
    shown: shown(a.url),
  };
}

/** The document Plan.info names when it is a URL (not inline JSON); null otherwise. */
function planDocument(info: string): ChecksummedUrl | null {
  const text = info.trim();
  if (!text || isInlinePlanInfo(text)) return null;
  try {
    // Only recorded, never trusted: the fetch itself was checked under the operator's settings.
    return parseChecksummedUrl(text, false, true);
  } catch {
    return null;
  }
}

export function sourceOf(plan: UpgradePlan, artifact: ChecksummedUrl, bytesSha256: string): ArtifactSource {
  const doc = planDocument(plan.info);
  return {
    version: 1,
    plan: plan.name,
    info_sha256: sha256(plan.info.trim()),
    document: doc ? recorded(doc) : null,
    artifact: recorded(artifact),
    sha256: bytesSha256,
    fetched_at: new Date().toISOString(),
  };
}

export function writeSource(dir: string, source: ArtifactSource): void {
  writeFileAtomic(join(dir, SOURCE_FILE), `${JSON.stringify(source, null, 2)}\n`, { mode: 0o600 });
}

export async function fileDigest(file: string, algorithm = "sha256"): Promise<string> {
  const h = createHash(algorithm);
  // 1 MiB reads: with the default 64 KiB, a binary of a few MiB took the halt tens of milliseconds of turns.
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** Whether `dir` says visor fetched what it holds (a record, or an earlier visor's pre-fetch marker). */
function fetchedByVisor(dir: string): boolean {
  return existsSync(join(dir, SOURCE_FILE)) || existsSync(join(dir, LEGACY_PREFETCH_MARKER));
}

/**
 * Whether the binary `bin` of an upgrade folder is one visor fetched, so that its record decides whether it
 * may run. Not when there is no record (put there by hand, `add-upgrade`), nor when its bytes are not the ones
 * the record names: it was replaced by hand after visor installed it (or `add-upgrade` was cut short before
 * it removed the record), and such a binary is the operator's, used as is.
 */
export async function installedByVisor(dir: string, bin: string): Promise<boolean> {
  if (!fetchedByVisor(dir)) return false;
  const recordedBinary = readSource(dir)?.binary_sha256;
  return !recordedBinary || (await fileDigest(bin)) === recordedBinary;
}

export function readSource(dir: string): ArtifactSource | null {
  try {
    const doc = JSON.parse(readFileSync(join(dir, SOURCE_FILE), "utf8")) as ArtifactSource;
    return doc?.version === 1 && doc.artifact?.url_sha256 ? doc : null;
  } catch {
    return null;
  }
}

/** A folder now holds an operator's binary (`add-upgrade`): it is used as is, like any binary put there by hand. */
export function forgetSource(dir: string): void {
  rmSync(join(dir, SOURCE_FILE), { force: true });
  rmSync(join(dir, LEGACY_PREFETCH_MARKER), { force: true });
}

/**
 * Why what visor fetched into `dir` is not the artifact `expected` (the one upgrade-info.json's Plan.info names
 * for this platform, resolved at the halt); null when it is: the same URL and the same checksum (or none in
 * both). The document a URL Plan.info pointed at may move or change; only the artifact it names counts.
 */
export function sourceDiffers(dir: string, expected: ChecksummedUrl): string | null {
  const source = readSource(dir);
  if (!source) return "where it came from is not recorded (or the record is unreadable)";
  const want = recorded(expected);
  const found: string[] = [];
  if (source.artifact.url_sha256 !== want.url_sha256)
    found.push(`it came from ${source.artifact.shown}, upgrade-info.json names ${want.shown}`);
  if (source.artifact.checksum !== want.checksum)
    found.push(
      `its checksum is ${source.artifact.checksum ?? "none"}, upgrade-info.json names ${want.checksum ?? "none"}`,
    );
  return found.length ? found.join("; ") : null;
}
