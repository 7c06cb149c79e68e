import { randomUUID } from "node:crypto";
import {
  chmodSync,
  createWriteStream,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { basename, dirname, join, normalize } from "node:path";
import { pipeline } from "node:stream/promises";
import { VisorError } from "../errors/visor-error.js";
import { type ArtifactFormat, artifactFormat, type Codec } from "./artifact-format.js";
import { decodedStream } from "./decoded-stream.js";
import { checkTar, extractTar } from "./tar-archive.js";
import { MAX_UNPACKED_BYTES, UnpackBudget } from "./unpack-budget.js";
import { checkZip, extractZip } from "./zip-archive.js";

export interface UnpackLimits {
  /** The most one entry, a decompressed stream, or an archive in all may hold. */
  maxBytes: number;
}

const DEFAULT_UNPACK_LIMITS: UnpackLimits = { maxBytes: MAX_UNPACKED_BYTES };

/** Who visor runs as: every installed file becomes theirs (POSIX; elsewhere files keep their owner). */
const self = process.getuid && process.getgid ? { uid: process.getuid(), gid: process.getgid() } : null;

/**
 * Nothing visor installs may be changed by another local user before it runs: every file, folder and link is
 * owned by visor's own user and group (an archive's owners are never kept), none is group- or world-writable,
 * and none is set-user-ID or set-group-ID (a root visor would otherwise hand local users a root program).
 */
function secureTree(path: string): void {
  const st = lstatSync(path);
  if (self && (st.uid !== self.uid || st.gid !== self.gid)) lchownSync(path, self.uid, self.gid);
  if (st.isSymbolicLink()) return;
  if ((st.mode & 0o6022) !== 0) chmodSync(path, st.mode & 0o1755);
  if (st.isDirectory()) for (const f of readdirSync(path)) secureTree(join(path, f));
}

/** A library's errors (a damaged header, a write through a link) as visor's. */
const archiveError = (what: string, e: unknown) =>
  e instanceof VisorError ? e : new VisorError("ARCHIVE", `cannot unpack ${what}: ${(e as Error).message}`);

/**
 * Decompresses `file` whole into a new file beside it, through the budget: a bomb stops at the limit, and a
 * damaged or truncated stream is refused here, before anything of the release is unpacked.
 */
async function decompress(file: string, codec: Codec, limits: UnpackLimits, shown: string): Promise<string> {
  const out = join(dirname(file), `.unpacked-${randomUUID()}`);
  const budget = new UnpackBudget({ maxBytes: limits.maxBytes, dir: dirname(file) });
  try {
    await pipeline(
      decodedStream(file, codec),
      budget.meter(`its ${codec} stream`),
      createWriteStream(out, { flags: "wx", mode: 0o600 }),
    );
  } catch (e) {
    rmSync(out, { force: true });
    if (e instanceof VisorError) throw e;
    throw new VisorError(
      "ARCHIVE",
      `cannot unpack ${shown}: its ${codec} stream is damaged or cut short (${(e as Error).message})`,
    );
  }
  return out;
}

async function unpackArchive(
  file: string,
  format: ArtifactFormat,
  dir: string,
  limits: UnpackLimits,
  shown: string,
): Promise<void> {
  if (format.kind === "tar") {
    await checkTar(file, dir, limits.maxBytes).catch((e) => {
      throw archiveError(shown, e);
    });
    await extractTar(file, dir).catch((e) => {
      throw archiveError(shown, e);
    });
  } else {
    const budget = () => new UnpackBudget({ maxBytes: limits.maxBytes, dir });
    await checkZip(file, dir, budget());
    await extractZip(file, dir, budget());
  }
}

/**
 * Installs a verified download into an upgrade folder, whatever go-getter would have taken, told by its
 * content: a zip, or a tar (bare or compressed with gzip, bzip2, xz or zstd), is unpacked whole (its
 * `bin/<name>`, or `<name>` at the top, is the binary); a bare binary, compressed with one of those or not,
 * becomes `bin/<name>`. Everything is visor's own and never group- or world-writable; the binary is made
 * executable.
 */
export async function installArtifact(
  file: string,
  dir: string,
  name: string,
  limits: UnpackLimits = DEFAULT_UNPACK_LIMITS,
): Promise<string> {
  mkdirSync(join(dir, "bin"), { recursive: true });
  const bin = join(dir, "bin", name);
  const shown = basename(file);
  // Out of the way of any entry an archive may hold, and removed whatever happens.
  const artifact = join(dirname(file), `.artifact-${randomUUID()}`);
  renameSync(file, artifact);
  const scratch = [artifact];
  try {
    let source = artifact;
    let format = artifactFormat(source);
    if (format.kind === "compressed") {
      const codec = format.codec;
      source = await decompress(source, codec, limits, shown);
      scratch.push(source);
      format = artifactFormat(source);
      if (format.kind === "zip" || format.kind === "compressed")
        throw new VisorError(
          "ARCHIVE",
          `refusing ${shown}: its ${codec} stream holds a ${format.kind === "zip" ? "zip" : `${format.codec} stream`}, which is neither a tar nor a binary`,
        );
    }
    if (format.kind === "plain") renameSync(source, bin);
    else {
      await unpackArchive(source, format, dir, limits, shown);
      if (!existsSync(bin) && existsSync(join(dir, name))) renameSync(join(dir, name), bin);
      if (!existsSync(bin))
        throw new VisorError("ARCHIVE", `the archive holds neither bin/${name} nor ${name}`);
    }
  } finally {
    for (const f of scratch) rmSync(f, { force: true });
  }
  secureTree(dir);
  chmodSync(bin, 0o755);
  return normalize(bin);
}
