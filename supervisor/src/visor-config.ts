import { existsSync, readFileSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parseGoDuration } from "@chaind/core/go-duration";
import { parse } from "smol-toml";
import { DEFAULT_DOWNLOAD, DEFAULT_MAX_DOWNLOAD_BYTES } from "./downloader.js";
import { nodeListenAddresses } from "./node-listen-addresses.js";
import { VisorError } from "./visor-error.js";

/** Effective settings: cosmovisor's environment (same names, defaults and parsing) plus visor's own. */
export interface VisorConfig {
  home: string;
  name: string;
  allowDownloadBinaries: boolean;
  downloadMustHaveChecksum: boolean;
  restartAfterUpgrade: boolean;
  restartDelayMs: number;
  shutdownGraceMs: number;
  pollIntervalMs: number;
  dataBackupDir: string;
  unsafeSkipBackup: boolean;
  preUpgradeMaxRetries: number;
  /** The node's gRPC, asked first for heights and the scheduled plan; by default `[grpc] address` of app.toml. */
  grpcAddress: string;
  disableLogs: boolean;
  colorLogs: boolean;
  timeFormatLogs: string;
  customPreUpgrade: string;
  disableRecase: boolean;
  /** visor: the node's REST gateway, asked when gRPC does not answer; by default `[api] address` of app.toml. */
  restAddress: string;
  /** visor: the node's CometBFT RPC, asked when gRPC and REST do not answer; by default `[rpc] laddr`. */
  rpcAddress: string;
  /** visor: fetch the scheduled plan's binary while the node still runs. */
  prefetch: boolean;
  /** visor: react to file events on the data folder (off for file systems without them: polling only). */
  watchEvents: boolean;
  /** visor: a download that receives no byte for this long is cut and retried. */
  downloadStallTimeoutMs: number;
  /** visor: how many data backups to keep (older ones are removed); 0 keeps all. */
  backupKeep: number;
  /** visor: Prometheus metrics listener (host:port), empty for none. */
  metricsAddress: string;
  /** visor: ed25519 public keys (hex or base64) whose detached signature (`<url>.sig`) every artifact needs. */
  trustedKeys: string[];
  /** visor: `file:` URLs in Plan.info (off: a plan could name any local file); never the node's config/ or data/. */
  allowFileUrls: boolean;
  /** visor: the most one download may hold; its Content-Length is checked first, the stream cut past it. */
  maxDownloadBytes: number;
}

type Source = Record<string, string | undefined>;

const KEYS: Record<keyof VisorConfig, string> = {
  home: "DAEMON_HOME",
  name: "DAEMON_NAME",
  allowDownloadBinaries: "DAEMON_ALLOW_DOWNLOAD_BINARIES",
  downloadMustHaveChecksum: "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
  restartAfterUpgrade: "DAEMON_RESTART_AFTER_UPGRADE",
  restartDelayMs: "DAEMON_RESTART_DELAY",
  shutdownGraceMs: "DAEMON_SHUTDOWN_GRACE",
  pollIntervalMs: "DAEMON_POLL_INTERVAL",
  dataBackupDir: "DAEMON_DATA_BACKUP_DIR",
  unsafeSkipBackup: "UNSAFE_SKIP_BACKUP",
  preUpgradeMaxRetries: "DAEMON_PREUPGRADE_MAX_RETRIES",
  grpcAddress: "DAEMON_GRPC_ADDRESS",
  disableLogs: "COSMOVISOR_DISABLE_LOGS",
  colorLogs: "COSMOVISOR_COLOR_LOGS",
  timeFormatLogs: "COSMOVISOR_TIMEFORMAT_LOGS",
  customPreUpgrade: "COSMOVISOR_CUSTOM_PREUPGRADE",
  disableRecase: "COSMOVISOR_DISABLE_RECASE",
  restAddress: "VISOR_REST_ADDRESS",
  rpcAddress: "VISOR_RPC_ADDRESS",
  prefetch: "VISOR_PREFETCH",
  watchEvents: "VISOR_WATCH_EVENTS",
  downloadStallTimeoutMs: "VISOR_DOWNLOAD_STALL_TIMEOUT",
  backupKeep: "VISOR_BACKUP_KEEP",
  metricsAddress: "VISOR_METRICS_ADDRESS",
  trustedKeys: "VISOR_TRUSTED_KEYS",
  allowFileUrls: "VISOR_ALLOW_FILE_URLS",
  maxDownloadBytes: "VISOR_MAX_DOWNLOAD_BYTES",
};

const configError = (msg: string) => new VisorError("CONFIG", msg);

function bool(src: Source, key: string, def: boolean): boolean {
  const v = src[key];
  if (v === undefined || v === "") return def;
  const l = v.toLowerCase();
  if (l === "true") return true;
  if (l === "false") return false;
  throw configError(`${key}: invalid boolean ${JSON.stringify(v)}; use true or false`);
}

function duration(src: Source, key: string, def: number, allowZero: boolean): number {
  const v = src[key];
  if (v === undefined || v === "") return def;
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (e) {
    throw configError(`${key}: ${(e as Error).message}`);
  }
  if (ms < 0 || (!allowZero && ms === 0))
    throw configError(`${key}: must be greater than 0, got ${JSON.stringify(v)}`);
  return ms;
}

function uint(src: Source, key: string, def: number): number {
  const v = src[key];
  if (v === undefined || v === "") return def;
  if (!/^\d+$/.test(v)) throw configError(`${key}: must be a non-negative integer, got ${JSON.stringify(v)}`);
  return Number(v);
}

function positive(src: Source, key: string, def: number): number {
  const n = uint(src, key, def);
  if (n === 0 || !Number.isSafeInteger(n))
    throw configError(`${key}: must be a positive integer, got ${src[key]}`);
  return n;
}

/** `$DAEMON_HOME/cosmovisor/config.toml` (or `-c`), keyed by the environment names; env wins over it. */
function fileSource(path: string | undefined, home: string | undefined): Source {
  const file = path ?? (home ? join(home, "cosmovisor", "config.toml") : undefined);
  if (!file || !existsSync(file)) {
    if (path) throw configError(`config file ${path} does not exist`);
    return {};
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw configError(`cannot parse ${file}: ${(e as Error).message}`);
  }
  const out: Source = {};
  for (const [k, v] of Object.entries(doc)) out[k.toUpperCase()] = Array.isArray(v) ? v.join(",") : String(v);
  return out;
}

/**
 * Reads the settings from the environment over the optional config file, with cosmovisor's defaults and
 * errors. `requireLayout` also checks that `$DAEMON_HOME/cosmovisor` exists (every command but init).
 */
export function loadVisorConfig(
  env: Source,
  opts: { configFile?: string; requireLayout?: boolean } = {},
): VisorConfig {
  const src: Source = { ...fileSource(opts.configFile, env.DAEMON_HOME), ...stripEmpty(env) };
  const home = src.DAEMON_HOME;
  if (!home) throw configError("DAEMON_HOME is not set");
  if (!isAbsolute(home))
    throw configError(`DAEMON_HOME must be an absolute path, got ${JSON.stringify(home)}`);
  const name = src.DAEMON_NAME;
  if (!name) throw configError("DAEMON_NAME is not set");
  if (name.includes("/") || name === "." || name === "..")
    throw configError(`DAEMON_NAME must be a file name, got ${JSON.stringify(name)}`);
  if (opts.requireLayout && !existsSync(join(home, "cosmovisor")))
    throw configError(`${join(home, "cosmovisor")} does not exist: run "visor init <path to ${name}>" first`);
  const dataBackupDir = src.DAEMON_DATA_BACKUP_DIR || home;
  if (!isAbsolute(dataBackupDir))
    throw configError(
      `DAEMON_DATA_BACKUP_DIR must be an absolute path, got ${JSON.stringify(dataBackupDir)}`,
    );
  if (src.DAEMON_DATA_BACKUP_DIR && (!existsSync(dataBackupDir) || !statSync(dataBackupDir).isDirectory()))
    throw configError(`DAEMON_DATA_BACKUP_DIR ${dataBackupDir} must be an existing folder`);
  const timeFormat = src.COSMOVISOR_TIMEFORMAT_LOGS || "kitchen";
  const formats = [
    "layout",
    "ansic",
    "unixdate",
    "rubydate",
    "rfc822",
    "rfc822z",
    "rfc850",
    "rfc1123",
    "rfc1123z",
    "rfc3339",
    "rfc3339nano",
    "kitchen",
  ];
  if (!formats.includes(timeFormat))
    throw configError(`COSMOVISOR_TIMEFORMAT_LOGS: unsupported value ${JSON.stringify(timeFormat)}`);
  const listen = nodeListenAddresses(home);
  return {
    home,
    name,
    allowDownloadBinaries: bool(src, KEYS.allowDownloadBinaries, false),
    downloadMustHaveChecksum: bool(src, KEYS.downloadMustHaveChecksum, false),
    restartAfterUpgrade: bool(src, KEYS.restartAfterUpgrade, true),
    restartDelayMs: duration(src, KEYS.restartDelayMs, 0, true),
    shutdownGraceMs: duration(src, KEYS.shutdownGraceMs, 0, true),
    pollIntervalMs: duration(src, KEYS.pollIntervalMs, 300, false),
    dataBackupDir,
    unsafeSkipBackup: bool(src, KEYS.unsafeSkipBackup, false),
    preUpgradeMaxRetries: uint(src, KEYS.preUpgradeMaxRetries, 0),
    grpcAddress: src.DAEMON_GRPC_ADDRESS || listen.grpc,
    disableLogs: bool(src, KEYS.disableLogs, false),
    colorLogs: bool(src, KEYS.colorLogs, true),
    timeFormatLogs: timeFormat,
    customPreUpgrade: src.COSMOVISOR_CUSTOM_PREUPGRADE ?? "",
    disableRecase: bool(src, KEYS.disableRecase, false),
    restAddress: src.VISOR_REST_ADDRESS || listen.rest,
    rpcAddress: src.VISOR_RPC_ADDRESS || listen.rpc,
    prefetch: bool(src, KEYS.prefetch, true),
    watchEvents: bool(src, KEYS.watchEvents, true),
    downloadStallTimeoutMs: duration(
      src,
      KEYS.downloadStallTimeoutMs,
      DEFAULT_DOWNLOAD.stallTimeoutMs,
      false,
    ),
    backupKeep: uint(src, KEYS.backupKeep, 3),
    metricsAddress: src.VISOR_METRICS_ADDRESS ?? "",
    trustedKeys: (src.VISOR_TRUSTED_KEYS ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
    allowFileUrls: bool(src, KEYS.allowFileUrls, false),
    maxDownloadBytes: positive(src, KEYS.maxDownloadBytes, DEFAULT_MAX_DOWNLOAD_BYTES),
  };
}

function stripEmpty(env: Source): Source {
  return Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ""));
}

/** The settings as `visor config` prints them: environment names and effective values. */
export function describeConfig(c: VisorConfig): string {
  const lines = (Object.keys(KEYS) as (keyof VisorConfig)[]).map((k) => {
    const v = c[k];
    const shown = k.endsWith("Ms") ? `${v}ms` : Array.isArray(v) ? v.join(",") : String(v);
    return `${KEYS[k]}: ${shown}`;
  });
  return `${lines.join("\n")}\n`;
}
