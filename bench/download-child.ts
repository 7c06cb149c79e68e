// One download in a fresh process, so its time and peak RSS are its own. Arguments: <visor|plain> <url> <dest>
// [sha256]. Prints one JSON line: {"ms", "bytes", "maxRssMb"}.
import { createWriteStream, statSync } from "node:fs";
import { dirname } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { silentLogger } from "@chaind/core/logger";
import { DEFAULT_DOWNLOAD, DEFAULT_MAX_DOWNLOAD_BYTES, downloadFile } from "visor/downloader";

const [mode, url, dest, sha256] = process.argv.slice(2);
const t0 = performance.now();
if (mode === "visor") {
  const policy = {
    allowFileUrls: false,
    home: dirname(dest),
    dataBackupDir: dirname(dest),
    maxDownloadBytes: DEFAULT_MAX_DOWNLOAD_BYTES,
  };
  await downloadFile(
    parseChecksummedUrl(`${url}?checksum=sha256:${sha256}`, true),
    dest,
    { ...DEFAULT_DOWNLOAD, policy },
    { logger: silentLogger },
  );
} else {
  // The ceiling: the same fetch, streamed straight to disk, no hash, no fsync, no rename.
  const res = await fetch(url);
  if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
  await pipeline(
    Readable.fromWeb(res.body as import("node:stream/web").ReadableStream),
    createWriteStream(dest),
  );
}
const ms = performance.now() - t0;
console.log(
  JSON.stringify({ ms, bytes: statSync(dest).size, maxRssMb: process.resourceUsage().maxRSS / 1024 }),
);
