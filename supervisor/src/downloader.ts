import { createHash } from "node:crypto";
import {
  closeSync,
  createReadStream,
  createWriteStream,
  fsyncSync,
  openSync,
  renameSync,
  rmSync,
} from "node:fs";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { fileURLToPath } from "node:url";
import type { Logger } from "../../node/src/logging/logger.js";
import type { ArtifactUrl } from "./artifact-url.js";
import { crashPoint } from "./crash-point.js";
import { VisorError } from "./visor-error.js";

export interface DownloadOptions {
  retries: number;
  /** No byte for this long aborts the attempt. */
  stallTimeoutMs: number;
  /** First backoff; doubled after each failed attempt. */
  backoffMs: number;
  onProgress?: (received: number, total: number | null) => void;
}

export const DEFAULT_DOWNLOAD: DownloadOptions = { retries: 4, stallTimeoutMs: 30_000, backoffMs: 500 };

/** Errors of the local disk: another attempt would fail the same way, so they stop the download at once. */
const LOCAL_WRITE_ERRORS = new Set(["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM"]);

class Retryable extends Error {}

/**
 * Streams `src` to `dest`: bytes go to `<dest>.partial` while their digest is computed, the file is fsynced,
 * the digest checked, and only then renamed into place, so nothing unverified ever sits at `dest`. Network
 * errors, stalls and 5xx answers are retried with backoff; a checksum mismatch is not.
 */
export async function downloadFile(
  src: ArtifactUrl,
  dest: string,
  opts: DownloadOptions,
  deps: { logger: Logger },
): Promise<{ bytes: number; sha256: string }> {
  const partial = `${dest}.partial`;
  let delay = opts.backoffMs;
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await attemptDownload(src, partial, opts);
      if (src.checksum && r.digest !== src.checksum.hex) {
        rmSync(partial, { force: true });
        throw new VisorError(
          "CHECKSUM",
          `checksum mismatch for ${src.url}: expected ${src.checksum.algorithm}:${src.checksum.hex}, got ${src.checksum.algorithm}:${r.digest}`,
        );
      }
      renameSync(partial, dest);
      return { bytes: r.bytes, sha256: r.sha256 };
    } catch (e) {
      rmSync(partial, { force: true });
      if (!(e instanceof Retryable) || attempt >= opts.retries) {
        if (e instanceof VisorError) throw e;
        throw new VisorError("DOWNLOAD", `download of ${src.url} failed: ${(e as Error).message}`);
      }
      deps.logger.warn("download failed, retrying", {
        url: src.url,
        attempt: attempt + 1,
        err: (e as Error).message,
      });
      await new Promise((r) => setTimeout(r, delay));
      delay *= 2;
    }
  }
}

async function attemptDownload(
  src: ArtifactUrl,
  partial: string,
  opts: DownloadOptions,
): Promise<{ bytes: number; digest: string; sha256: string }> {
  let body: Readable;
  let total: number | null = null;
  const abort = new AbortController();
  if (src.url.startsWith("file:")) {
    body = createReadStream(fileURLToPath(src.url));
  } else {
    let res: Response;
    try {
      res = await fetch(src.url, { signal: abort.signal });
    } catch (e) {
      throw new Retryable((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message);
    }
    if (res.status >= 500) throw new Retryable(`HTTP ${res.status}`);
    if (!res.ok || !res.body)
      throw new VisorError("DOWNLOAD", `download of ${src.url} failed: HTTP ${res.status}`);
    total = Number(res.headers.get("content-length")) || null;
    body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream);
  }
  const sha256 = createHash("sha256");
  const checked =
    src.checksum && src.checksum.algorithm !== "sha256" ? createHash(src.checksum.algorithm) : null;
  let bytes = 0;
  let stall: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(stall);
    stall = setTimeout(() => {
      abort.abort();
      body.destroy(new Retryable(`no data for ${opts.stallTimeoutMs} ms`));
    }, opts.stallTimeoutMs);
  };
  arm();
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      arm();
      if (bytes === 0) crashPoint("download");
      bytes += chunk.length;
      sha256.update(chunk);
      checked?.update(chunk);
      opts.onProgress?.(bytes, total);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(body, meter, createWriteStream(partial, { mode: 0o600 }));
  } catch (e) {
    if (e instanceof Retryable) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (LOCAL_WRITE_ERRORS.has(code))
      throw new VisorError("DOWNLOAD", `cannot write ${partial}: ${(e as Error).message}`);
    throw new Retryable((e as Error).message);
  } finally {
    clearTimeout(stall);
  }
  if (total !== null && bytes !== total)
    throw new Retryable(`connection closed after ${bytes} of ${total} bytes`);
  const fd = openSync(partial, "r+");
  fsyncSync(fd);
  closeSync(fd);
  const sha256Hex = sha256.digest("hex");
  return { bytes, sha256: sha256Hex, digest: checked ? checked.digest("hex") : sha256Hex };
}
