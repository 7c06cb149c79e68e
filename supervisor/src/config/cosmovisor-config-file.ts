import { join } from "node:path";
import { getAt, tableRows } from "@chaind/core/config-table";
import { GO_TIME_LAYOUTS } from "./go-time-layout.js";
import { fileKeyOf, VISOR_SETTINGS, type VisorConfig } from "./visor-config.js";

/**
 * Cosmovisor's config.toml and its `config` printout, in cosmovisor's own forms, so an operator can diff what
 * visor writes and prints against what cosmovisor writes and prints.
 */

/** The settings of cosmovisor's Config struct, in its field order (the order its encoder writes them). */
export const COSMOVISOR_SETTINGS = [
  "DAEMON_HOME",
  "DAEMON_NAME",
  "DAEMON_ALLOW_DOWNLOAD_BINARIES",
  "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
  "DAEMON_RESTART_AFTER_UPGRADE",
  "DAEMON_RESTART_DELAY",
  "DAEMON_SHUTDOWN_GRACE",
  "DAEMON_POLL_INTERVAL",
  "UNSAFE_SKIP_BACKUP",
  "DAEMON_DATA_BACKUP_DIR",
  "DAEMON_PREUPGRADE_MAX_RETRIES",
  "DAEMON_GRPC_ADDRESS",
  "COSMOVISOR_DISABLE_LOGS",
  "COSMOVISOR_COLOR_LOGS",
  "COSMOVISOR_TIMEFORMAT_LOGS",
  "COSMOVISOR_CUSTOM_PREUPGRADE",
  "COSMOVISOR_DISABLE_RECASE",
] as const;

/** Every row of the table, cosmovisor's in its order first, then visor's own in table order. */
function rowsInCosmovisorOrder() {
  const rows = tableRows(VISOR_SETTINGS);
  const byKey = new Map(rows.map((r) => [r.key, r]));
  const theirs = COSMOVISOR_SETTINGS.map((k) => byKey.get(k)!);
  return { theirs, ours: rows.filter((r) => !(COSMOVISOR_SETTINGS as readonly string[]).includes(r.key)) };
}

/**
 * The config.toml `cosmovisor init` writes: one `key = value` line per field, as go-toml v2 encodes them
 * (literal strings, durations as integer nanoseconds, the time format by its option name). Visor's own keys
 * follow under a comment; cosmovisor ignores them. The backup folder is written as in effect (DAEMON_HOME
 * when unset), as cosmovisor writes it.
 */
export function renderConfigToml(configured: VisorConfig): string {
  const c = { ...configured, dataBackupDir: configured.dataBackupDir || configured.home };
  const line = (row: ReturnType<typeof tableRows>[number]) =>
    `${fileKeyOf(row.key)} = ${row.setting.type.toml!(getAt(c as unknown as Record<string, unknown>, row.path))}`;
  const { theirs, ours } = rowsInCosmovisorOrder();
  return [
    ...theirs.map(line),
    "",
    "# visor's own settings; cosmovisor ignores these keys",
    ...ours.map(line),
    "",
  ].join("\n");
}

/**
 * What `cosmovisor config` prints (its Config.DetailString): cosmovisor's settings as it shows them (the time
 * format as its Go layout), then visor's own, then the derived paths right-aligned.
 */
export function describeConfig(c: VisorConfig): string {
  const { theirs, ours } = rowsInCosmovisorOrder();
  const show = (row: ReturnType<typeof tableRows>[number]) =>
    row.key === "COSMOVISOR_TIMEFORMAT_LOGS"
      ? GO_TIME_LAYOUTS[c.timeFormatLogs]
      : row.setting.type.show(getAt(c as unknown as Record<string, unknown>, row.path));
  // Cosmovisor's printout has no DAEMON_GRPC_ADDRESS line; visor prints it first of its own.
  const isGrpc = (r: { key: string }) => r.key === "DAEMON_GRPC_ADDRESS";
  const configurable = [...theirs.filter((r) => !isGrpc(r)), ...theirs.filter(isGrpc), ...ours];
  const root = join(c.home, "cosmovisor");
  const derived: [string, string][] = [
    ["Root Dir", root],
    ["Upgrade Dir", join(root, "upgrades")],
    ["Genesis Bin", join(root, "genesis", "bin", c.name)],
    ["Monitored File", join(c.home, "data", "upgrade-info.json")],
    ["Data Backup Dir", c.dataBackupDir],
  ];
  const width = Math.max(...derived.map(([k]) => k.length));
  return [
    "Configurable Values:",
    ...configurable.map((r) => `  ${r.key}: ${show(r)}`),
    "Derived Values:",
    ...derived.map(([k, v]) => `  ${k.padStart(width)}: ${v}`),
    "",
  ].join("\n");
}
