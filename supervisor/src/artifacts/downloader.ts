import { createHash } from "node:crypto";
import { closeSync, createWriteStream, fsyncSync, openSync, renameSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ChecksummedUrl } from "@chaind/core/checksummed-url";
import type { Logger } from "@chaind/core/logger";
import type { DownloadTiming } from "../config/download-defaults.js";
import { VisorError } from "../errors/visor-error.js";
import { crashPoint } from "../host/crash-point.js";
import { lackOfSpace, lackOfSpaceWhileWriting } from "../host/disk-space.js";
import { FetchError, type FetchPolicy, openUrl } from "./url-fetch.js";

// The defaults sit with the config that names them (config must not import the downloader); callers take them here.
export { DEFAULT_DOWNLOAD, DEFAULT_MAX_DOWNLOAD_BYTES } from "../config/download-defaults.js";

export interface DownloadOptions extends DownloadTiming {
  onProgress?: (received: number, total: number | null) => void;
  /** What may be fetched, and how much (VISOR_ALLOW_FILE_URLS, VISOR_MAX_DOWNLOAD_BYTES). */
  policy: FetchPolicy;
}

/** Errors of the local disk: another attempt would fail the same way, so they stop the download at once. */
const LOCAL_WRITE_ERRORS = new Set(["ENOSPC", "EDQUOT", "EROFS", "EACCES", "EPERM"]);

/**
 * Streams `src` to `dest`: bytes go to `<dest>.partial` while their digest is computed, the file is fsynced,
 * the digest checked, and only then renamed into place, so nothing unverified ever sits at `dest`. Network
 * errors, stalls and 5xx answers are retried with backoff; a checksum mismatch, a refused source, a download
 * past VISOR_MAX_DOWNLOAD_BYTES and a lack of disk space are not.
 */
export async function downloadFile(
  src: ChecksummedUrl,
  dest: string,
  opts: DownloadOptions,
  deps: { logger: Logger },
): Promise<{ bytes: number; sha256: string }> {
  const partial = `${dest}.partial`;
  // The digest of a checksum file is read before a download (withChecksumFromFile); never download unchecked.
  if (src.checksumFile && !src.checksum)
    throw new VisorError("CHECKSUM", `the checksum file ${src.checksumFile} for ${src.url} was not read`);
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
      if (e instanceof VisorError) throw e;
      const transient = e instanceof FetchError && e.transient;
      if (!transient || attempt >= opts.retries)
        throw new VisorError("DOWNLOAD", `download of ${src.url} failed: ${(e as Error).message}`);
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
  src: ChecksummedUrl,
  partial: string,
  opts: DownloadOptions,
): Promise<{ bytes: number; digest: string; sha256: string }> {
  const max = opts.policy.maxDownloadBytes;
  const dir = dirname(partial);
  const abort = new AbortController();
  const { body, total } = await openUrl(src.url, opts.policy, {
    maxBytes: max,
    limitName: "VISOR_MAX_DOWNLOAD_BYTES",
    signal: abort.signal,
  });
  // A known length must fit; an unknown one is watched while it streams, so a modest disk is not turned away.
  const lack = lackOfSpace(dir, total ?? 0);
  if (lack) {
    body.destroy();
    throw new FetchError(`not enough disk space: ${lack}`);
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
      body.destroy(new FetchError(`no data for ${opts.stallTimeoutMs} ms`, true));
    }, opts.stallTimeoutMs);
  };
  arm();
  const meter = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      arm();
      if (bytes === 0) crashPoint("download");
      const before = bytes;
      bytes += chunk.length;
      if (bytes > max) return cb(new FetchError(`it sent more than VISOR_MAX_DOWNLOAD_BYTES (${max} bytes)`));
      const short = lackOfSpaceWhileWriting(
        dir,
        before,
        bytes,
        total === null ? 0 : Math.max(0, total - bytes),
      );
      if (short) return cb(new FetchError(`not enough disk space: ${short}`));
      sha256.update(chunk);
      checked?.update(chunk);
      opts.onProgress?.(bytes, total);
      cb(null, chunk);
    },
  });
  try {
    await pipeline(body, meter, createWriteStream(partial, { mode: 0o600 }));
  } catch (e) {
    if (e instanceof FetchError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? "";
    if (LOCAL_WRITE_ERRORS.has(code))
      throw new VisorError("DOWNLOAD", `cannot write ${partial}: ${(e as Error).message}`);
    throw new FetchError((e as Error).message, true);
  } finally {
    clearTimeout(stall);
  }
  if (total !== null && bytes !== total)
    throw new FetchError(`received ${bytes} of the ${total} bytes announced`, true);
  const fd = openSync(partial, "r+");
  fsyncSync(fd);
  closeSync(fd);
  const sha256Hex = sha256.digest("hex");
  return { bytes, sha256: sha256Hex, digest: checked ? checked.digest("hex") : sha256Hex };
}
