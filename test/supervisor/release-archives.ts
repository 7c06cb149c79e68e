import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import { ZipFile } from "yazl";
import { type TarEntry, tarOf } from "../reliability/tar-builder.js";

export type { TarEntry };
export { tarOf };

/** The compressions a release may use; gzip comes from Node, the others from their reference tools. */
export type Codec = "gzip" | "bzip2" | "xz" | "zstd";
const TOOL: Record<Exclude<Codec, "gzip">, string> = { bzip2: "bzip2", xz: "xz", zstd: "zstd" };

/** The reference compressors this machine lacks (.ci/run installs them; tests needing one skip and say why). */
export function missingCompressors(): string[] {
  return Object.values(TOOL).filter((tool) => {
    try {
      execFileSync(tool, ["--version"], { stdio: "ignore" });
      return false;
    } catch {
      return true;
    }
  });
}

/** `data` compressed as the release tools do it: gzip by Node's zlib, bzip2, xz and zstd by their own CLIs. */
export function compress(data: Buffer, codec: Codec): Buffer {
  if (codec === "gzip") return gzipSync(data);
  return execFileSync(TOOL[codec], ["-c", "-q"], { input: data, maxBuffer: 1024 ** 3 });
}

export interface ZipItem {
  name: string;
  data?: string | Buffer;
  /** Unix mode with its file type bits (0o100755, 0o120777 for a symbolic link, …). */
  mode?: number;
  /** Stored rather than deflated. */
  store?: boolean;
}

/** A zip written by yazl, a maintained zip writer: what `zip -r` would make of these entries. */
export function zipOf(items: readonly ZipItem[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const it of items) {
    if (it.name.endsWith("/")) zip.addEmptyDirectory(it.name, { mode: it.mode ?? 0o40755 });
    else
      zip.addBuffer(Buffer.from(it.data ?? ""), it.name, {
        mode: it.mode ?? 0o100644,
        compress: !it.store,
        mtime: new Date(0),
      });
  }
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on("data", (c: Buffer) => chunks.push(c));
    zip.outputStream.on("end", () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on("error", reject);
  });
}

/**
 * Renames an entry in a zip's bytes (local header and central directory alike), as no honest writer would:
 * yazl refuses names such as `../x`. `from` and `to` must be as long.
 */
export function renameInZip(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error("names must be as long");
  const out = Buffer.from(zip);
  let at = out.indexOf(from);
  if (at < 0) throw new Error(`${from} not in the zip`);
  while (at >= 0) {
    out.write(to, at, "latin1");
    at = out.indexOf(from, at + from.length);
  }
  return out;
}

/** The zip writers other than yazl that releases come from, missing on this machine (tests needing one skip). */
export function missingZipWriters(): string[] {
  return [
    ["python3", "--version"],
    ["zip", "-v"],
  ].flatMap(([tool, arg]) => {
    try {
      execFileSync(tool, [arg], { stdio: "ignore" });
      return [];
    } catch {
      return [tool];
    }
  });
}

export interface PythonZipItem {
  name: string;
  data?: string | Buffer;
  /** The Unix mode set as `external_attr = mode << 16`; release scripts write 0o755, with no file-type bits. */
  mode: number;
}

/** A zip written by Python's zipfile (test/supervisor/python-zipfile-writer.py), deflated. */
export function pythonZipOf(items: readonly PythonZipItem[]): Buffer {
  const entries = items.map((it) => ({
    name: it.name,
    data: Buffer.from(it.data ?? "").toString("base64"),
    mode: it.mode,
  }));
  return execFileSync("python3", [join(import.meta.dirname, "python-zipfile-writer.py")], {
    input: JSON.stringify(entries),
    maxBuffer: 1024 ** 3,
  });
}

export interface InfoZipItem {
  /** A path under the zipped folder; a name ending in `/` is a folder. */
  path: string;
  data?: string | Buffer;
  mode?: number;
  /** Made a symbolic link to this target, which `zip -y` stores as a link. */
  linkTo?: string;
}

/** A zip written by Info-ZIP's `zip -r -y` (the `zip` of Linux distributions) from these files on disk. */
export function infoZipOf(items: readonly InfoZipItem[]): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "visor-infozip-"));
  try {
    const tree = join(dir, "tree");
    mkdirSync(tree);
    for (const it of items) {
      const at = join(tree, it.path);
      if (it.path.endsWith("/")) mkdirSync(at, { recursive: true, mode: it.mode ?? 0o755 });
      else {
        mkdirSync(dirname(at), { recursive: true });
        if (it.linkTo) symlinkSync(it.linkTo, at);
        else writeFileSync(at, it.data ?? "", { mode: it.mode ?? 0o644 });
      }
    }
    execFileSync("zip", ["-q", "-r", "-y", "-X", join(dir, "out.zip"), "."], { cwd: tree });
    return readFileSync(join(dir, "out.zip"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
