import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { tableRows, withGeneratedRegions } from "@chaind/core/config-table";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  COSMOVISOR_SETTINGS,
  describeConfig,
  renderConfigToml,
} from "../../supervisor/src/config/cosmovisor-config-file.js";
import {
  configuredSettings,
  fileKeyOf,
  loadVisorConfig,
  VISOR_SETTINGS,
  visorSettingsDoc,
} from "../../supervisor/src/config/visor-config.js";
import { VisorError } from "../../supervisor/src/errors/visor-error.js";

const root = resolve(import.meta.dirname, "../..");

/** The keys of cosmovisor 1.6's config.toml (its Config struct's toml tags), in its order. */
const COSMOVISOR_FILE_KEYS = [
  "daemon_home",
  "daemon_name",
  "daemon_allow_download_binaries",
  "daemon_download_must_have_checksum",
  "daemon_restart_after_upgrade",
  "daemon_restart_delay",
  "daemon_shutdown_grace",
  "daemon_poll_interval",
  "unsafe_skip_backup",
  "daemon_data_backup_dir",
  "daemon_preupgrade_max_retries",
  "daemon_grpc_address",
  "cosmovisor_disable_logs",
  "cosmovisor_color_logs",
  "cosmovisor_timeformat_logs",
  "cosmovisor_custom_preupgrade",
  "cosmovisor_disable_recase",
];

function loadError(env: Record<string, string>, opts?: Parameters<typeof loadVisorConfig>[1]): VisorError {
  try {
    loadVisorConfig(env, opts);
  } catch (e) {
    if (e instanceof VisorError) return e;
    throw e;
  }
  throw new Error("the settings were accepted");
}

describe("visor's settings table", () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "visor-config-"));
    mkdirSync(join(home, "cosmovisor"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("names each setting by its environment variable and by cosmovisor's config.toml key", () => {
    const rows = tableRows(VISOR_SETTINGS);
    const fileKeys = rows.map((r) => fileKeyOf(r.key));
    // Cosmovisor's come first, in its order; visor's own follow in the same form, so one file holds them all.
    expect(fileKeys.slice(0, COSMOVISOR_FILE_KEYS.length).sort()).toEqual([...COSMOVISOR_FILE_KEYS].sort());
    expect(fileKeys.slice(COSMOVISOR_FILE_KEYS.length).every((k) => k.startsWith("visor_"))).toBe(true);
    // The file is written in cosmovisor's field order.
    expect(COSMOVISOR_SETTINGS.map(fileKeyOf)).toEqual(COSMOVISOR_FILE_KEYS);
  });

  it("reports every bad variable at once, one line each with the expected form", () => {
    const e = loadError({
      DAEMON_NAME: "a/b",
      DAEMON_RESTART_AFTER_UPGRADE: "yes",
      DAEMON_POLL_INTERVAL: "0s",
      DAEMON_PREUPGRADE_MAX_RETRIES: "99999999999999999999",
      COSMOVISOR_TIMEFORMAT_LOGS: "unix",
      VISOR_TRUSTED_KEYS: "00ff",
      VISOR_MAX_DOWNLOAD_BYTES: "2GiB",
    });
    expect(e.code).toBe("CONFIG");
    expect(e.message.split("\n")).toEqual([
      "DAEMON_HOME: not set; expected an absolute path",
      'DAEMON_NAME: expected a file name, got "a/b"',
      'DAEMON_RESTART_AFTER_UPGRADE: expected true or false, got "yes"',
      'DAEMON_POLL_INTERVAL: expected a Go duration > 0 such as 300ms or 10s, got "0s"',
      'DAEMON_PREUPGRADE_MAX_RETRIES: expected a whole number ≥ 0, got "99999999999999999999"',
      `COSMOVISOR_TIMEFORMAT_LOGS: expected one of layout, ansic, unixdate, rubydate, rfc822, rfc822z, rfc850, rfc1123, rfc1123z, rfc3339, rfc3339nano, kitchen, got "unix"`,
      'VISOR_TRUSTED_KEYS: expected comma-separated 32-byte ed25519 public keys (hex or base64), got "00ff"',
      'VISOR_MAX_DOWNLOAD_BYTES: expected a whole number ≥ 1, got "2GiB"',
    ]);
  });

  it("names the file and its key for a bad value from cosmovisor/config.toml; the environment wins over it", () => {
    const file = join(home, "cosmovisor", "config.toml");
    writeFileSync(
      file,
      'daemon_poll_interval = "soon"\nVISOR_BACKUP_KEEP = "x"\ndaemon_shutdown_grace = "2s"\n',
    );
    const e = loadError({ DAEMON_HOME: home, DAEMON_NAME: "chaind" });
    expect(e.message.split("\n")).toEqual([
      `${file}: daemon_poll_interval: expected a Go duration > 0 such as 300ms or 10s, got "soon"`,
      `${file}: VISOR_BACKUP_KEEP: expected a whole number ≥ 0, got "x"`,
    ]);
    const c = loadVisorConfig({
      DAEMON_HOME: home,
      DAEMON_NAME: "chaind",
      DAEMON_POLL_INTERVAL: "1s",
      VISOR_BACKUP_KEEP: "5",
    });
    expect(c).toMatchObject({ pollIntervalMs: 1000, backupKeep: 5, shutdownGraceMs: 2000 });
  });

  it("checks DAEMON_DATA_BACKUP_DIR is an existing folder, and defaults it to DAEMON_HOME", () => {
    const env = { DAEMON_HOME: home, DAEMON_NAME: "chaind" };
    expect(loadVisorConfig(env).dataBackupDir).toBe(home);
    expect(loadError({ ...env, DAEMON_DATA_BACKUP_DIR: "backups" }).message).toBe(
      'DAEMON_DATA_BACKUP_DIR: expected an absolute path, got "backups"',
    );
    const missing = join(home, "nope");
    expect(loadError({ ...env, DAEMON_DATA_BACKUP_DIR: missing }).message).toBe(
      `DAEMON_DATA_BACKUP_DIR: expected an existing folder, got "${missing}"`,
    );
    expect(loadVisorConfig({ ...env, DAEMON_DATA_BACKUP_DIR: join(home, "cosmovisor") }).dataBackupDir).toBe(
      join(home, "cosmovisor"),
    );
  });

  it("prints `visor config` as cosmovisor's DetailString, then visor's own settings; config.toml reads back the same", () => {
    const env = {
      DAEMON_HOME: home,
      DAEMON_NAME: "chaind",
      DAEMON_POLL_INTERVAL: "1m30s",
      VISOR_TRUSTED_KEYS: ` ${"ab".repeat(32)} , ${Buffer.alloc(32, 7).toString("base64")}`,
      COSMOVISOR_TIMEFORMAT_LOGS: "rfc3339",
    };
    const c = loadVisorConfig(env);
    const lines = describeConfig(c).split("\n");
    // Cosmovisor's lines, as its `config` prints them for these settings (the time format as its Go layout).
    expect(lines.slice(0, 17)).toEqual([
      "Configurable Values:",
      `  DAEMON_HOME: ${home}`,
      "  DAEMON_NAME: chaind",
      "  DAEMON_ALLOW_DOWNLOAD_BINARIES: false",
      "  DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: false",
      "  DAEMON_RESTART_AFTER_UPGRADE: true",
      "  DAEMON_RESTART_DELAY: 0s",
      "  DAEMON_SHUTDOWN_GRACE: 0s",
      "  DAEMON_POLL_INTERVAL: 1m30s",
      "  UNSAFE_SKIP_BACKUP: false",
      `  DAEMON_DATA_BACKUP_DIR: ${home}`,
      "  DAEMON_PREUPGRADE_MAX_RETRIES: 0",
      "  COSMOVISOR_DISABLE_LOGS: false",
      "  COSMOVISOR_COLOR_LOGS: true",
      "  COSMOVISOR_TIMEFORMAT_LOGS: 2006-01-02T15:04:05Z07:00",
      "  COSMOVISOR_CUSTOM_PREUPGRADE: ",
      "  COSMOVISOR_DISABLE_RECASE: false",
    ]);
    const ours = tableRows(VISOR_SETTINGS)
      .map((r) => r.key)
      .filter((k) => !(COSMOVISOR_SETTINGS as readonly string[]).includes(k));
    const derivedAt = lines.indexOf("Derived Values:");
    expect(lines.slice(17, derivedAt).map((l) => l.slice(2, l.indexOf(": ")))).toEqual([
      "DAEMON_GRPC_ADDRESS",
      ...ours,
    ]);
    expect(lines).toContain("  VISOR_DOWNLOAD_STALL_TIMEOUT: 30s");
    expect(lines.slice(derivedAt)).toEqual([
      "Derived Values:",
      `         Root Dir: ${home}/cosmovisor`,
      `      Upgrade Dir: ${home}/cosmovisor/upgrades`,
      `      Genesis Bin: ${home}/cosmovisor/genesis/bin/chaind`,
      `   Monitored File: ${home}/data/upgrade-info.json`,
      `  Data Backup Dir: ${home}`,
      "",
    ]);
    // The config.toml form (what init writes) holds every setting, and read alone gives the same settings.
    const file = join(home, "written.toml");
    writeFileSync(file, renderConfigToml(configuredSettings(env)));
    expect(loadVisorConfig({}, { configFile: file })).toEqual(c);
  });

  it("docs/OPERATIONS.md holds the settings table the code declares", () => {
    const doc = readFileSync(join(root, "docs/OPERATIONS.md"), "utf8");
    expect(
      doc === withGeneratedRegions(doc, { "visor settings": visorSettingsDoc() }),
      "docs/OPERATIONS.md is stale: run npm run docs:config",
    ).toBe(true);
    for (const row of tableRows(VISOR_SETTINGS)) expect(doc).toContain(`| ${row.key} |`);
  });
});
