import {
  closeSync,
  constants,
  createReadStream,
  fstatSync,
  openSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import { fileURLToPath } from "node:url";
import type { VisorConfig } from "../config/visor-config.js";
import { withoutUserInfo } from "../errors/url-redaction.js";

/**
 * What visor may fetch: `file:` URLs only with VISOR_ALLOW_FILE_URLS, and then never from the node's `config/`
 * or `data/` under DAEMON_HOME; downloads up to VISOR_MAX_DOWNLOAD_BYTES.
 */
export type FetchPolicy = Pick<VisorConfig, "allowFileUrls" | "home" | "dataBackupDir" | "maxDownloadBytes">;

/** Why a fetch failed; a `transient` failure (network error, HTTP 5xx, stall) may pass on another attempt. */
export class FetchError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
    this.name = "FetchError";
  }
}

/** The most a source may hold, and the name an operator knows that limit by (for the error). */
export interface FetchLimit {
  maxBytes: number;
  limitName: string;
  signal?: AbortSignal;
}

export interface OpenedUrl {
  body: Readable;
  /** The length the source declares (Content-Length, a file's size), when it does. */
  total: number | null;
}

const tooLarge = (what: string, bytes: number, limit: FetchLimit) =>
  new FetchError(`${what} ${bytes} bytes, more than ${limit.limitName} (${limit.maxBytes} bytes)`);

/**
 * Opens a URL for reading under the policy. HTTP(S) credentials in the URL (`user:pass@`) go in an
 * `Authorization: Basic` header, never in the URL fetched; fetch drops that header on a redirect to another
 * origin. A declared size over the limit is refused before a byte is read.
 */
export async function openUrl(raw: string, policy: FetchPolicy, limit: FetchLimit): Promise<OpenedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError("not a valid URL");
  }
  if (url.protocol === "file:") return openFile(url, policy, limit);
  if (url.protocol === "http:" || url.protocol === "https:") return openHttp(url, limit);
  throw new FetchError(`unsupported URL scheme ${url.protocol}`);
}

/** Reads a small document (a plan-info document, a signature) whole, stopping as soon as it passes the limit. */
export async function readUrl(raw: string, policy: FetchPolicy, limit: FetchLimit): Promise<Buffer> {
  const { body } = await openUrl(raw, policy, limit);
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > limit.maxBytes) {
      body.destroy();
      throw new FetchError(`it holds more than ${limit.limitName} (${limit.maxBytes} bytes)`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function basicAuth(url: URL): { bare: URL; headers: Record<string, string> } {
  if (!url.username && !url.password) return { bare: url, headers: {} };
  const bare = withoutUserInfo(url);
  const pair = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { bare, headers: { authorization: `Basic ${Buffer.from(pair).toString("base64")}` } };
}

async function openHttp(url: URL, limit: FetchLimit): Promise<OpenedUrl> {
  const { bare, headers } = basicAuth(url);
  let res: Response;
  try {
    res = await fetch(bare, { headers, signal: limit.signal });
  } catch (e) {
    throw new FetchError((e as { cause?: { code?: string } }).cause?.code ?? (e as Error).message, true);
  }
  const refuse = async (e: FetchError) => {
    await res.body?.cancel().catch(() => {});
    return e;
  };
  if (res.status >= 500) throw await refuse(new FetchError(`HTTP ${res.status}`, true));
  if (!res.ok || !res.body) throw await refuse(new FetchError(`HTTP ${res.status}`));
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  const length = Number.isSafeInteger(declared) && declared >= 0 ? declared : null;
  if (length !== null && length > limit.maxBytes)
    throw await refuse(tooLarge("the server announces", length, limit));
  // A body fetch decodes (Content-Encoding) has no known decoded length; the limit still holds while streaming.
  const encoded = (res.headers.get("content-encoding") ?? "identity") !== "identity";
  return { body: Readable.fromWeb(res.body as ReadableStream), total: encoded ? null : length };
}

/** A folder's identity on disk: the same folder under any spelling (case, links, `..`). */
function folderId(path: string): string | null {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}`;
  } catch {
    return null;
  }
}

/**
 * The folder that puts `file` out of a file: URL's reach, if any: the node's home (keys, config, data, keyrings)
 * except its `cosmovisor/` folder, and the data backups (`data-backup-*` in DAEMON_DATA_BACKUP_DIR). Folders are
 * compared by device and inode, so neither another spelling nor a case-insensitive file system gets around it.
 */
function forbiddenFolder(file: string, policy: FetchPolicy): string | null {
  const home = folderId(policy.home);
  const visorRoot = folderId(join(policy.home, "cosmovisor"));
  const backups = folderId(policy.dataBackupDir);
  for (let dir = dirname(file), child = ""; ; child = basename(dir), dir = dirname(dir)) {
    const id = folderId(dir);
    if (id !== null && id === visorRoot) return null;
    if (id !== null && id === home) return policy.home;
    if (id !== null && id === backups && child.startsWith("data-backup-")) return join(dir, child);
    if (dirname(dir) === dir) return null;
  }
}

/**
 * A `file:` URL, when the operator allowed them: a regular file (after links are resolved), outside the node's
 * home (but for its `cosmovisor/` folder) and its data backups. The file is opened first and checked through
 * its descriptor (Linux names the opened file in /proc/self/fd), so a link swapped after the check cannot
 * redirect the read; a file with more than one name (a hard link, perhaps to a key) is refused, as its other
 * names could be anywhere. Only the bytes present at opening are read: a growing file cannot feed an endless
 * download.
 */
function openFile(url: URL, policy: FetchPolicy, limit: FetchLimit): OpenedUrl {
  if (!policy.allowFileUrls)
    throw new FetchError("file: URLs are refused; set VISOR_ALLOW_FILE_URLS=true to allow them");
  let path: string;
  try {
    path = fileURLToPath(url);
  } catch (e) {
    throw new FetchError(`not a local file: ${(e as Error).message}`);
  }
  let fd: number;
  try {
    // Non-blocking, so opening a FIFO returns at once (and is then refused) instead of waiting for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw new FetchError(`cannot open ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new FetchError(`${path} is not a regular file`);
    let opened: string;
    try {
      opened = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      opened = realpathSync(path);
    }
    const forbidden = forbiddenFolder(opened, policy);
    if (forbidden)
      throw new FetchError(
        `${path} is inside ${forbidden}: file: URLs never read the node's home (but its cosmovisor/ folder) or its data backups`,
      );
    if (st.nlink > 1)
      throw new FetchError(
        `${path} has ${st.nlink} names (hard links): file: URLs read files with one name only`,
      );
    if (st.size > limit.maxBytes) throw tooLarge(`${path} has`, st.size, limit);
    if (st.size === 0) {
      closeSync(fd);
      return { body: Readable.from([]), total: 0 };
    }
    return { body: createReadStream("", { fd, start: 0, end: st.size - 1 }), total: st.size };
  } catch (e) {
    closeSync(fd);
    throw e;
  }
}
