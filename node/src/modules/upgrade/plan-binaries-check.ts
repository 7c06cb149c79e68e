import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { checksumFromFile } from "@chaind/core/checksum-file";
import { type ChecksummedUrl, parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { readLimitedResponse } from "@chaind/core/limited-response";
import { parsePlanDocument, planInfoSource, validatePlanInfo } from "@chaind/core/plan-info";
import { PlanInfoError } from "@chaind/core/plan-info-error";

/** A release binary or archive past this is refused: the check holds each download in memory. */
const MAX_CHECKED_DOWNLOAD_BYTES = 512 * 1024 ** 2;
/** A plan-info document is a few lines of JSON; a checksum file a few lines of digests. */
const MAX_DOCUMENT_BYTES = 1024 ** 2;
const DOWNLOAD_TIMEOUT_MS = 10 * 60_000;

/** A daemon name as cosmovisor uses it: one file name, the one in `bin/` of each upgrade folder. */
function validateDaemonName(name: string): void {
  if (!name || name === "." || name === ".." || /[/\\\0]/.test(name))
    throw new PlanInfoError(
      "PLAN_INFO",
      `invalid daemon name ${JSON.stringify(name)}: a file name, e.g. chaind`,
    );
}

/**
 * What `software-upgrade --daemon-name` checks, as Cosmos' plan.ParseInfo + ValidateFull do: the plan-info
 * document behind a URL is fetched (its checksum checked) and validated, then every binary is downloaded, its
 * checksum checked, and it must be the daemon: a plain file, or an archive holding `bin/<daemon>` or `<daemon>`.
 */
export async function checkPlanBinaries(
  info: string,
  opts: { daemonName: string; requireChecksum: boolean },
): Promise<void> {
  validateDaemonName(opts.daemonName);
  validatePlanInfo(info, { requireChecksum: opts.requireChecksum });
  const src = planInfoSource(info, { mustHaveChecksum: opts.requireChecksum });
  let binaries: Record<string, string>;
  if (src.kind === "inline") binaries = src.binaries;
  else {
    const text = (await download(src.document, MAX_DOCUMENT_BYTES)).toString("utf8");
    const where = `plan info document ${src.document.url}`;
    binaries = parsePlanDocument(text, where);
    try {
      validatePlanInfo(JSON.stringify({ binaries }), { requireChecksum: opts.requireChecksum });
    } catch (e) {
      throw new PlanInfoError((e as PlanInfoError).code, `${where}: ${(e as Error).message}`);
    }
  }
  for (const [platform, raw] of Object.entries(binaries)) {
    const target = parseChecksummedUrl(raw, opts.requireChecksum);
    // A document fetched from elsewhere must not make this command read the proposer's own files.
    const remote = src.kind !== "inline" && !src.document.url.startsWith("file:");
    if (remote && [target.url, target.checksumFile].some((u) => u?.startsWith("file:")))
      throw new PlanInfoError(
        "PLAN_INFO",
        `plan info document ${src.document.url}: binary for ${platform} is a file: URL, which only inline plan info may name`,
      );
    try {
      // `?checksum=file:<url>` names no digest until its file is read; downloading without one checks nothing.
      if (target.checksumFile) {
        const listing = (
          await download({ url: target.checksumFile, checksum: null }, MAX_DOCUMENT_BYTES)
        ).toString();
        target.checksum = checksumFromFile(listing, target.url, target.checksumFile);
      }
      const bytes = await download(target, MAX_CHECKED_DOWNLOAD_BYTES);
      const entries = archiveEntries(bytes);
      if (entries && !entries.some((e) => isDaemonPath(e, opts.daemonName)))
        throw new PlanInfoError(
          "PLAN_INFO",
          `the archive holds neither bin/${opts.daemonName} nor ${opts.daemonName}`,
        );
    } catch (e) {
      throw new PlanInfoError(
        e instanceof PlanInfoError ? e.code : "PLAN_INFO",
        `error downloading binary for os/arch ${platform}: ${(e as Error).message}`,
      );
    }
  }
}

async function download(target: ChecksummedUrl, maxBytes: number): Promise<Buffer> {
  let bytes: Buffer;
  if (target.url.startsWith("file:")) {
    const path = fileURLToPath(target.url);
    const st = await stat(path);
    // A device or FIFO reports no size and never ends (/dev/zero, a pipe): only regular files are read.
    if (!st.isFile()) throw new Error(`${target.url} is not a regular file`);
    if (st.size > maxBytes) throw new Error(`${target.url} is larger than ${maxBytes} bytes`);
    bytes = await readFile(path);
  } else {
    const res = await fetch(target.url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
    if (!res.ok) {
      await res.body?.cancel().catch(() => {});
      throw new Error(`GET ${target.url}: HTTP ${res.status}`);
    }
    bytes = await readLimitedResponse(res, maxBytes);
  }
  if (target.checksum) {
    const actual = createHash(target.checksum.algorithm).update(bytes).digest("hex");
    if (actual !== target.checksum.hex)
      throw new PlanInfoError(
        "CHECKSUM",
        `checksum mismatch for ${target.url}: expected ${target.checksum.algorithm}:${target.checksum.hex}, got ${actual}`,
      );
  }
  return bytes;
}

function isDaemonPath(entry: string, daemon: string): boolean {
  const path = entry.replace(/^(\.\/)+/, "");
  return path === daemon || path === `bin/${daemon}`;
}

/**
 * The file names in a tar, tar.gz or zip; null for anything else, which is taken as the binary itself (as
 * go-getter saves a file that is no archive). Archives of other kinds cannot be looked into here.
 */
function archiveEntries(bytes: Buffer): string[] | null {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    let tar: Buffer;
    try {
      tar = gunzipSync(bytes, { maxOutputLength: 4 * MAX_CHECKED_DOWNLOAD_BYTES });
    } catch (e) {
      throw new PlanInfoError("PLAN_INFO", `cannot read the gzip archive: ${(e as Error).message}`);
    }
    return isTar(tar) ? tarEntries(tar) : null;
  }
  if (isTar(bytes)) return tarEntries(bytes);
  if (bytes.readUInt32LE(0) === 0x04034b50) return zipEntries(bytes);
  if (/^(BZh|\xfd7zXZ|\x28\xb5\x2f\xfd)/.test(bytes.subarray(0, 6).toString("latin1")))
    throw new PlanInfoError(
      "PLAN_INFO",
      "a bz2, xz or zst archive cannot be looked into here; pass --no-validate to skip the check",
    );
  return null;
}

function isTar(b: Buffer): boolean {
  return b.length >= 512 && b.subarray(257, 262).toString("latin1") === "ustar";
}

/** Walks the 512-byte headers of a tar: ustar's name with its prefix, and GNU long names. */
function tarEntries(tar: Buffer): string[] {
  const names: string[] = [];
  let longName: string | null = null;
  for (let off = 0; off + 512 <= tar.length; ) {
    const header = tar.subarray(off, off + 512);
    if (header.every((x) => x === 0)) break;
    const field = (start: number, len: number) =>
      header
        .subarray(start, start + len)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    const size = Number.parseInt(field(124, 12).trim() || "0", 8);
    const type = String.fromCharCode(header[156]);
    if (!Number.isFinite(size) || size < 0) throw new PlanInfoError("PLAN_INFO", "damaged tar archive");
    const body = off + 512;
    if (type === "L")
      longName = tar
        .subarray(body, body + size)
        .toString("utf8")
        .replace(/\0.*$/s, "");
    else {
      const prefix = field(345, 155);
      const name = longName ?? (prefix ? `${prefix}/${field(0, 100)}` : field(0, 100));
      if (type === "0" || type === "\0" || type === "7") names.push(name);
      longName = null;
    }
    off = body + Math.ceil(size / 512) * 512;
  }
  return names;
}

/** The names in a zip's central directory. */
function zipEntries(zip: Buffer): string[] {
  const end = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0 || end + 22 > zip.length) throw new PlanInfoError("PLAN_INFO", "damaged zip archive");
  const count = zip.readUInt16LE(end + 10);
  const names: string[] = [];
  for (let i = 0, off = zip.readUInt32LE(end + 16); i < count; i++) {
    if (off + 46 > zip.length || zip.readUInt32LE(off) !== 0x02014b50)
      throw new PlanInfoError("PLAN_INFO", "damaged zip archive");
    const nameLen = zip.readUInt16LE(off + 28);
    const name = zip.subarray(off + 46, off + 46 + nameLen).toString("utf8");
    if (!name.endsWith("/")) names.push(name);
    off += 46 + nameLen + zip.readUInt16LE(off + 30) + zip.readUInt16LE(off + 32);
  }
  return names;
}
