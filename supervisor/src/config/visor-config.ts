import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { WEAK_CHECKSUMS_SETTING } from "@chaind/core/checksummed-url";
import {
  type ConfigOf,
  defaultCell,
  defineTable,
  formatProblem,
  markdownTable,
  parseTable,
  type SettingLookup,
  setting,
  tableRows,
} from "@chaind/core/config-table";
import { parse } from "smol-toml";
import { VisorError } from "../errors/visor-error.js";
import { DEFAULT_DOWNLOAD, DEFAULT_MAX_DOWNLOAD_BYTES } from "./download-defaults.js";
import {
  envAbsolutePath,
  envBool,
  envChoice,
  envFileName,
  envGoDuration,
  envList,
  envText,
  envWholeNumber,
} from "./env-setting-types.js";
import { GO_TIME_LAYOUTS, type GoTimeLayoutName } from "./go-time-layout.js";
import { nodeListenAddresses } from "./node-listen-addresses.js";
import { trustedKeyBytes } from "./trusted-key.js";

/** A setting's key in cosmovisor's config.toml (cosmovisor 1.6 writes its variables lower-cased; visor's own too). */
export const fileKeyOf = (envName: string) => envName.toLowerCase();

/** The layouts cosmovisor accepts for COSMOVISOR_TIMEFORMAT_LOGS, in its order. */
const TIME_FORMATS = Object.keys(GO_TIME_LAYOUTS) as GoTimeLayoutName[];

/**
 * Visor's settings: cosmovisor's environment (same names, defaults and parsing) plus visor's own (VISOR_*).
 * Durations are Go durations, as cosmovisor reads them; the parsed values are milliseconds.
 */
export const VISOR_SETTINGS = defineTable({
  name: "visor settings",
  entries: {
    home: setting({
      name: "DAEMON_HOME",
      type: envAbsolutePath,
      default: "",
      required: true,
      doc: "absolute path of the node home",
    }),
    name: setting({
      name: "DAEMON_NAME",
      type: envFileName,
      default: "",
      required: true,
      doc: "binary name",
    }),
    allowDownloadBinaries: setting({
      name: "DAEMON_ALLOW_DOWNLOAD_BINARIES",
      type: envBool,
      default: false,
      doc: "download the binary named by Plan.info",
    }),
    downloadMustHaveChecksum: setting({
      name: "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
      type: envBool,
      default: false,
      doc: "every URL needs `?checksum=<type>:<hex>`, `?checksum=<hex>` or `?checksum=file:<url>` (sha256, sha384 or sha512; md5 and sha1 only with `VISOR_ALLOW_WEAK_CHECKSUMS`)",
    }),
    restartAfterUpgrade: setting({
      name: "DAEMON_RESTART_AFTER_UPGRADE",
      type: envBool,
      default: true,
      doc: "start the new binary with the same arguments; false: exit 0 after the switch",
    }),
    restartDelayMs: setting({
      name: "DAEMON_RESTART_DELAY",
      type: envGoDuration({ positive: false }),
      default: 0,
      doc: "wait after the halt, before the backup",
    }),
    shutdownGraceMs: setting({
      name: "DAEMON_SHUTDOWN_GRACE",
      type: envGoDuration({ positive: false }),
      default: 0,
      doc: "0: kill the daemon at once when an upgrade is due; else SIGINT, then SIGKILL after this",
    }),
    pollIntervalMs: setting({
      name: "DAEMON_POLL_INTERVAL",
      type: envGoDuration({ positive: true }),
      default: 300,
      doc: "polling period (file events are used first)",
    }),
    dataBackupDir: setting({
      name: "DAEMON_DATA_BACKUP_DIR",
      type: envAbsolutePath,
      default: "",
      defaultText: "DAEMON_HOME",
      check: (v) => (existsSync(v) && statSync(v).isDirectory() ? null : "an existing folder"),
      doc: "where `data-backup-<time>` folders go (absolute, existing)",
    }),
    unsafeSkipBackup: setting({
      name: "UNSAFE_SKIP_BACKUP",
      type: envBool,
      default: false,
      doc: "no data backup before an upgrade",
    }),
    preUpgradeMaxRetries: setting({
      name: "DAEMON_PREUPGRADE_MAX_RETRIES",
      type: envWholeNumber(0),
      default: 0,
      doc: "retries of `<new binary> pre-upgrade` exiting 31",
    }),
    grpcAddress: setting({
      name: "DAEMON_GRPC_ADDRESS",
      type: envText,
      default: "",
      defaultText:
        "`[grpc] address` of `$DAEMON_HOME/config/app.toml` when `[grpc] enable` (default true), else none",
      doc: 'the node\'s gRPC, asked first for heights (batch upgrades) and the scheduled plan (pre-fetch, `prepare-upgrade`); see "What visor trusts"',
    }),
    disableLogs: setting({
      name: "COSMOVISOR_DISABLE_LOGS",
      type: envBool,
      default: false,
      doc: "no log lines of visor's own",
    }),
    colorLogs: setting({
      name: "COSMOVISOR_COLOR_LOGS",
      type: envBool,
      default: true,
      doc: "colored log lines when stderr is a terminal",
    }),
    timeFormatLogs: setting({
      name: "COSMOVISOR_TIMEFORMAT_LOGS",
      type: envChoice(TIME_FORMATS),
      default: "kitchen",
      doc: "time format of visor's log lines: Go's layout of that name, as cosmovisor prints it (kitchen `3:04PM`, rfc3339 `2006-01-02T15:04:05Z07:00`, ...)",
    }),
    customPreUpgrade: setting({
      name: "COSMOVISOR_CUSTOM_PREUPGRADE",
      type: envText,
      default: "",
      doc: "script in `$DAEMON_HOME/cosmovisor/` run as `script <plan> <height>` from DAEMON_HOME",
    }),
    disableRecase: setting({
      name: "COSMOVISOR_DISABLE_RECASE",
      type: envBool,
      default: false,
      doc: "keep the plan name's case for the folder",
    }),
    logFormat: setting({
      name: "VISOR_LOG_FORMAT",
      type: envChoice(["plain", "json"] as const),
      default: "plain",
      doc: "`json`: one JSON object per line of visor's own, with cosmovisor's (zerolog's) fields `level`, `module`, `time`, `message` and the line's values, as chaind's `--log_format json`",
    }),
    restAddress: setting({
      name: "VISOR_REST_ADDRESS",
      type: envText,
      default: "",
      defaultText:
        "`[api] address` of `$DAEMON_HOME/config/app.toml` when `[api] enable` (default false), else none",
      doc: "the node's REST gateway, asked when gRPC does not answer",
    }),
    rpcAddress: setting({
      name: "VISOR_RPC_ADDRESS",
      type: envText,
      default: "",
      defaultText:
        "`[rpc] laddr` of `$DAEMON_HOME/config/config.toml` (default tcp://127.0.0.1:26657; empty: none)",
      doc: "the node's CometBFT RPC, asked when neither gRPC nor REST answers",
    }),
    prefetch: setting({
      name: "VISOR_PREFETCH",
      type: envBool,
      default: true,
      doc: "fetch and verify the scheduled plan's binary while the node still runs",
    }),
    watchEvents: setting({
      name: "VISOR_WATCH_EVENTS",
      type: envBool,
      default: true,
      doc: "react to file events on the data folder; false polls only (file systems without events)",
    }),
    downloadStallTimeoutMs: setting({
      name: "VISOR_DOWNLOAD_STALL_TIMEOUT",
      type: envGoDuration({ positive: true }),
      default: DEFAULT_DOWNLOAD.stallTimeoutMs,
      doc: "a download that receives no byte for this long is cut and retried",
    }),
    backupKeep: setting({
      name: "VISOR_BACKUP_KEEP",
      type: envWholeNumber(0),
      default: 3,
      doc: "data backups kept (older ones removed); 0 keeps all",
    }),
    metricsAddress: setting({
      name: "VISOR_METRICS_ADDRESS",
      type: envText,
      default: "",
      doc: "`host:port` for Prometheus `/metrics` (upgrades, last upgrade time, daemon starts, download bytes, pre-fetches, the next upgrade: height, ready, estimated time)",
    }),
    trustedKeys: setting({
      name: "VISOR_TRUSTED_KEYS",
      type: envList,
      default: [],
      check: (keys) =>
        keys.every((k) => trustedKeyBytes(k) !== null)
          ? null
          : "comma-separated 32-byte ed25519 public keys (hex or base64)",
      doc: "comma-separated ed25519 public keys (hex or base64); every artifact then needs a signature at `<url>.sig` (base64 or raw 64 bytes) by one of them over its plan, platform and digest ([Signed artifacts](#signed-artifacts))",
    }),
    allowFileUrls: setting({
      name: "VISOR_ALLOW_FILE_URLS",
      type: envBool,
      default: false,
      doc: "accept `file:` URLs in Plan.info and for plan-info documents; even then only regular files with one name, outside `$DAEMON_HOME` (but its `cosmovisor/` folder) and the data backups",
    }),
    allowWeakChecksums: setting({
      name: WEAK_CHECKSUMS_SETTING,
      type: envBool,
      default: false,
      doc: "accept `md5:` and `sha1:` checksums, which go-getter and cosmovisor take; their digests are checked all the same, but anyone able to craft a collision could pass one",
    }),
    maxDownloadBytes: setting({
      name: "VISOR_MAX_DOWNLOAD_BYTES",
      type: envWholeNumber(1),
      default: DEFAULT_MAX_DOWNLOAD_BYTES,
      unit: "bytes",
      defaultText: `${DEFAULT_MAX_DOWNLOAD_BYTES} (2 GiB)`,
      doc: "the most one artifact download may hold; a larger Content-Length is refused before the body is read, and a stream is cut as soon as it passes the limit",
    }),
    rollbackAfterFailures: setting({
      name: "VISOR_ROLLBACK_AFTER_FAILURES",
      type: envWholeNumber(0),
      default: 3,
      doc: "the new binary exiting non-zero this many times before it commits a block above the upgrade height rolls the upgrade back: the pre-upgrade backup is restored, `current` points back, visor exits 70 ([Rollback](#rollback)); 0: never, the daemon's failure is visor's at once",
    }),
    restartBackoffMaxMs: setting({
      name: "VISOR_RESTART_BACKOFF_MAX",
      type: envGoDuration({ positive: false }),
      default: 60_000,
      doc: "the longest wait before starting again a new binary that exited non-zero before its first block: the waits are 1s, 2s, 4s… up to this, each logged with its reason, and start again from 1s after a run of a minute (or this) or more; 0: start it again at once",
    }),
    notifyCommand: setting({
      name: "VISOR_NOTIFY_CMD",
      type: envText,
      default: "",
      doc: "a program and its arguments (split at spaces, run without a shell) given a JSON event on stdin at each step of an upgrade ([Notifications](#notifications))",
    }),
    notifyTimeoutMs: setting({
      name: "VISOR_NOTIFY_TIMEOUT",
      type: envGoDuration({ positive: true }),
      default: 10_000,
      doc: "a notification command still running after this is killed",
    }),
    rehearseBeforeMs: setting({
      name: "VISOR_REHEARSE_BEFORE",
      type: envGoDuration({ positive: false }),
      default: 0,
      doc: "rehearse each plan the node schedules (`visor rehearse`) once its estimated time is this near, at once when nearer; 0: never",
    }),
  },
});

/** Effective settings, one field per entry of {@link VISOR_SETTINGS}. */
export type VisorConfig = ConfigOf<typeof VISOR_SETTINGS.entries>;

type Source = Record<string, string | undefined>;

/** A config.toml's values by the upper-cased key (`daemon_poll_interval` and `DAEMON_POLL_INTERVAL` are one). */
interface FileSource {
  file: string;
  values: Map<string, { value: unknown; key: string }>;
}

/**
 * `$DAEMON_HOME/cosmovisor/config.toml` (or `--cosmovisor-config`): its TOML values as they are typed, by the
 * upper-cased key, with the key as written. Keys of no setting are ignored, as cosmovisor's viper ignores them,
 * but named through `warn`.
 */
function fileSource(
  path: string | undefined,
  home: string | undefined,
  warn: (message: string) => void,
): FileSource | null {
  const file = path ?? (home ? join(home, "cosmovisor", "config.toml") : undefined);
  if (!file || !existsSync(file)) {
    if (path) throw new VisorError("CONFIG", `config file ${path} does not exist`);
    return null;
  }
  let doc: Record<string, unknown>;
  try {
    doc = parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch (e) {
    throw new VisorError("CONFIG", `cannot parse ${file}: ${(e as Error).message}`);
  }
  const known = new Set(tableRows(VISOR_SETTINGS).map((r) => r.key));
  const values = new Map<string, { value: unknown; key: string }>();
  for (const [key, value] of Object.entries(doc)) {
    if (known.has(key.toUpperCase())) values.set(key.toUpperCase(), { value, key });
    else warn(`${file}: unknown key ${JSON.stringify(key)} ignored`);
  }
  return { file, values };
}

export interface LoadOptions {
  /** `--cosmovisor-config`; else `$DAEMON_HOME/cosmovisor/config.toml` when the environment names a home. */
  configFile?: string;
  /** Also check that `$DAEMON_HOME/cosmovisor` exists (every command but init and config). */
  requireLayout?: boolean;
  /** Told of what is ignored, such as unknown keys in the file. */
  warn?: (message: string) => void;
}

/**
 * The settings as configured: each from the environment, else the config file, else its default; an empty
 * value is unset in both (cosmovisor's rule). Every bad value is reported at once, one line each naming the
 * variable (or the file and its key) and the expected form. Nothing is derived from the node's files here.
 */
export function configuredSettings(env: Source, opts: LoadOptions = {}): VisorConfig {
  const file = fileSource(opts.configFile, env.DAEMON_HOME || undefined, opts.warn ?? (() => {}));
  const lookup: SettingLookup = (key) => {
    const fromEnv = env[key];
    if (fromEnv !== undefined && fromEnv !== "") return { value: fromEnv, source: null };
    const fromFile = file?.values.get(key);
    if (fromFile && fromFile.value !== "")
      return { value: fromFile.value, source: file!.file, key: fromFile.key };
    return undefined;
  };
  const read = parseTable(VISOR_SETTINGS, lookup);
  if (read.config === null) throw new VisorError("CONFIG", read.problems.map(formatProblem).join("\n"));
  return read.config;
}

/**
 * The effective settings: {@link configuredSettings}, then what they leave to the home: the backup folder
 * (DAEMON_HOME) and the node's API addresses (its app.toml and config.toml).
 */
export function loadVisorConfig(env: Source, opts: LoadOptions = {}): VisorConfig {
  const c = configuredSettings(env, opts);
  if (opts.requireLayout && !existsSync(join(c.home, "cosmovisor")))
    throw new VisorError(
      "CONFIG",
      `${join(c.home, "cosmovisor")} does not exist: run "visor init <path to ${c.name}>" first`,
    );
  c.dataBackupDir ||= c.home;
  if (!c.grpcAddress || !c.restAddress || !c.rpcAddress) {
    const listen = nodeListenAddresses(c.home);
    c.grpcAddress ||= listen.grpc;
    c.restAddress ||= listen.rest;
    c.rpcAddress ||= listen.rpc;
  }
  return c;
}

/** The settings table of docs/OPERATIONS.md. */
export function visorSettingsDoc(): string {
  return markdownTable(VISOR_SETTINGS, [
    { title: "variable", cell: (r) => r.key },
    { title: "config.toml key", cell: (r) => `\`${fileKeyOf(r.key)}\`` },
    { title: "form", cell: (r) => r.setting.type.expected + (r.setting.unit ? ` (${r.setting.unit})` : "") },
    { title: "default", cell: defaultCell },
    { title: "meaning", cell: (r) => r.setting.doc },
  ]);
}
