import { createWriteStream, mkdirSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";
import yauzl, { type Entry, type ZipFile } from "yauzl";
import { VisorError } from "../errors/visor-error.js";
import { lackOfSpace } from "../host/disk-space.js";
import type { UnpackBudget } from "./unpack-budget.js";

/** Hosts whose external attributes carry a Unix mode in their high 16 bits (zip's "version made by"). */
const UNIX_HOSTS = new Set([3 /* Unix */, 19 /* OS X */]);
const S_IFMT = 0o170000;
/**
 * null: a file or a folder. No type bits at all (Python's zipfile with `external_attr = 0o755 << 16`, some CI
 * tools) is read as Go's archive/zip reads it: a file, or a folder when the name ends in `/`.
 */
const FILE_TYPES = new Map<number, string | null>([
  [0, null],
  [0o100000, null],
  [0o040000, null],
  [0o120000, "symbolic link"],
  [0o020000, "character device"],
  [0o060000, "block device"],
  [0o010000, "FIFO"],
  [0o140000, "socket"],
]);
/** Stored and deflated: what zip tools write and yauzl decodes. */
const METHODS = new Set([0, 8]);

const isFolder = (e: Entry) => e.fileName.endsWith("/");
const unixMode = (e: Entry) => (UNIX_HOSTS.has(e.versionMadeBy >> 8) ? e.externalFileAttributes >>> 16 : 0);

/** yauzl's refusals of a name, which it makes before an entry is seen, in the words visor uses for tar. */
function zipError(e: unknown): VisorError {
  if (e instanceof VisorError) return e;
  const msg = (e as Error).message;
  const name = /^(?:absolute path|invalid relative path): (.*)$/.exec(msg);
  if (name)
    return new VisorError(
      "ARCHIVE",
      `refusing archive: entry ${JSON.stringify(name[1])} points outside the upgrade folder`,
    );
  return new VisorError("ARCHIVE", `damaged zip archive: ${msg}`);
}

async function eachEntry(file: string, visit: (zip: ZipFile, e: Entry) => Promise<void>): Promise<void> {
  const zip = await yauzl.openPromise(file, {
    lazyEntries: true,
    strictFileNames: false,
    validateEntrySizes: true,
  });
  try {
    for await (const e of zip.eachEntry()) await visit(zip, e);
  } finally {
    zip.close();
  }
}

/** An entry's bytes through the budget, checked against the CRC-32 its header names (yauzl checks none). */
async function entryBytes(zip: ZipFile, e: Entry, budget: UnpackBudget, sink: NodeJS.WritableStream | null) {
  let crc = 0;
  const check = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      crc = crc32(chunk, crc);
      cb(null, sink ? chunk : null);
    },
    flush(cb) {
      cb(
        crc >>> 0 === e.crc32 >>> 0
          ? null
          : new VisorError(
              "ARCHIVE",
              `damaged zip archive: entry ${JSON.stringify(e.fileName)} fails its CRC-32`,
            ),
      );
    },
  });
  const stages: (NodeJS.ReadableStream | NodeJS.WritableStream)[] = [
    await zip.openReadStreamPromise(e),
    budget.meter(`entry ${JSON.stringify(e.fileName)}`),
    check,
  ];
  if (sink) stages.push(sink);
  else check.resume();
  await (pipeline as (...s: unknown[]) => Promise<void>)(...stages);
}

/**
 * Every entry of a zip is read before anything is written: names stay inside (yauzl refuses absolute and `..`
 * names), no symbolic links (the Unix mode in the external attributes), devices, FIFOs, sockets or unknown
 * file types (a mode with no type bits is a file or folder), no encryption, no giants, each entry's data decompresses to its declared size and CRC-32, and the whole fits
 * on the disk.
 */
export async function checkZip(file: string, dir: string, budget: UnpackBudget): Promise<void> {
  const problems: string[] = [];
  const names = new Set<string>();
  const maxBytes = budget.opts.maxBytes;
  let total = 0;
  try {
    await eachEntry(file, async (_zip, e) => {
      const p = JSON.stringify(e.fileName);
      const kind = FILE_TYPES.get(unixMode(e) & S_IFMT);
      if (kind === undefined) problems.push(`entry ${p} has an unknown file type`);
      else if (kind) problems.push(`entry ${p} is a ${kind}: visor unpacks only files and folders`);
      const norm = posix.normalize(e.fileName).replace(/\/+$/, "");
      if (names.has(norm)) problems.push(`entry ${p} appears twice`);
      names.add(norm);
      if (e.isEncrypted()) problems.push(`entry ${p} is encrypted`);
      else if (!METHODS.has(e.compressionMethod))
        problems.push(
          `entry ${p} uses compression method ${e.compressionMethod}; visor unpacks stored and deflated entries`,
        );
      if (e.uncompressedSize > maxBytes) problems.push(`entry ${p} is larger than ${maxBytes} bytes`);
      total += e.uncompressedSize;
    });
    // Only an archive whose every header passed has its data read: each entry to its declared size and CRC-32.
    if (!problems.length && total <= maxBytes)
      await eachEntry(file, async (zip, e) => {
        if (!isFolder(e)) await entryBytes(zip, e, budget, null);
      });
  } catch (e) {
    // A hostile entry named first is the reason, not the damage it led to.
    if (!problems.length) throw zipError(e);
  }
  if (total > maxBytes) problems.push(`its entries hold ${total} bytes, more than ${maxBytes}`);
  const lack = problems.length ? null : lackOfSpace(dir, total);
  if (lack) problems.push(`not enough disk space to unpack it: ${lack}`);
  if (problems.length) throw new VisorError("ARCHIVE", `refusing archive: ${problems.join("; ")}`);
}

/**
 * Unpacks a zip that checkZip passed into `dir`: folders and regular files only, executable when the archive
 * says so for its owner; other modes come from the umask.
 */
export async function extractZip(file: string, dir: string, budget: UnpackBudget): Promise<void> {
  try {
    await eachEntry(file, async (zip, e) => {
      const dest = join(dir, e.fileName);
      const rel = relative(dir, dest);
      if (rel.startsWith("..") || rel === "")
        throw new VisorError(
          "ARCHIVE",
          `refusing archive: entry ${JSON.stringify(e.fileName)} points outside the upgrade folder`,
        );
      if (isFolder(e)) {
        mkdirSync(dest, { recursive: true, mode: 0o755 });
        return;
      }
      mkdirSync(dirname(dest), { recursive: true, mode: 0o755 });
      const mode = unixMode(e) & 0o100 ? 0o755 : 0o644;
      await entryBytes(zip, e, budget, createWriteStream(dest, { flags: "wx", mode }));
    });
  } catch (e) {
    throw zipError(e);
  }
}
