import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { takeCosmovisorConfig } from "../../supervisor/src/cli/cosmovisor-config-flag.js";
import { renderConfigToml } from "../../supervisor/src/config/cosmovisor-config-file.js";
import { goTomlString } from "../../supervisor/src/config/go-toml-string.js";
import { configuredSettings, loadVisorConfig } from "../../supervisor/src/config/visor-config.js";
import { VisorError } from "../../supervisor/src/errors/visor-error.js";
import { cosmovisorConfigToml } from "./cosmovisor-config-toml.js";

function failure(fn: () => unknown): VisorError {
  try {
    fn();
  } catch (e) {
    if (e instanceof VisorError) return e;
    throw e;
  }
  throw new Error("accepted");
}

describe("cosmovisor's config.toml", () => {
  let root: string;
  let home: string;
  let file: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-cfgfile-"));
    home = join(root, "home");
    mkdirSync(join(home, "cosmovisor"), { recursive: true });
    file = join(root, "cosmovisor.toml");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("reads the file cosmovisor 1.6 writes with no DAEMON_* variable set, integer nanoseconds included", () => {
    writeFileSync(file, cosmovisorConfigToml(home, "simd"));
    const c = loadVisorConfig({}, { configFile: file, requireLayout: true });
    expect(c).toMatchObject({
      home,
      name: "simd",
      allowDownloadBinaries: false,
      restartAfterUpgrade: true,
      restartDelayMs: 0,
      shutdownGraceMs: 0,
      pollIntervalMs: 300,
      dataBackupDir: home,
      grpcAddress: "localhost:9090",
      timeFormatLogs: "kitchen",
    });
    // Visor writes cosmovisor's keys exactly as cosmovisor does: the same lines, in the same order.
    expect(renderConfigToml(configuredSettings({}, { configFile: file }))).toMatch(
      new RegExp(
        `^${cosmovisorConfigToml(home, "simd").replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n# visor's own`,
      ),
    );
  });

  it("takes Go duration strings as well, and 1.5s as 1500000000 ns", () => {
    writeFileSync(
      file,
      `daemon_home = '${home}'\ndaemon_name = 'simd'\ndaemon_poll_interval = '1.5s'\ndaemon_shutdown_grace = 1500000000\nvisor_trusted_keys = ['${"ab".repeat(32)}']\n`,
    );
    const c = loadVisorConfig({}, { configFile: file });
    expect(c).toMatchObject({ pollIntervalMs: 1500, shutdownGraceMs: 1500, trustedKeys: ["ab".repeat(32)] });
    expect(renderConfigToml(c)).toContain("daemon_poll_interval = 1500000000\n");
    expect(renderConfigToml(c)).toContain(`visor_trusted_keys = ['${"ab".repeat(32)}']\n`);
  });

  it("the environment overrides the file key by key; an empty variable is unset", () => {
    writeFileSync(file, cosmovisorConfigToml(home, "simd"));
    const c = loadVisorConfig(
      {
        DAEMON_NAME: "gaiad",
        DAEMON_POLL_INTERVAL: "1s",
        DAEMON_RESTART_AFTER_UPGRADE: "",
        UNSAFE_SKIP_BACKUP: "TRUE",
      },
      { configFile: file },
    );
    expect(c).toMatchObject({
      home,
      name: "gaiad",
      pollIntervalMs: 1000,
      restartAfterUpgrade: true,
      unsafeSkipBackup: true,
    });
  });

  it("names the file and the key of each bad value, all at once", () => {
    writeFileSync(
      file,
      [
        "daemon_home = 'relative/home'",
        "daemon_name = 7",
        "daemon_poll_interval = 0",
        "daemon_restart_delay = true",
        "daemon_shutdown_grace = -5",
        "daemon_restart_after_upgrade = 'yes'",
        "daemon_preupgrade_max_retries = 1.5",
        "cosmovisor_timeformat_logs = 'unix'",
        "",
      ].join("\n"),
    );
    expect(failure(() => loadVisorConfig({}, { configFile: file })).message.split("\n")).toEqual([
      `${file}: daemon_home: expected an absolute path, got "relative/home"`,
      `${file}: daemon_name: expected a file name, got 7`,
      `${file}: daemon_restart_after_upgrade: expected true or false, got "yes"`,
      `${file}: daemon_restart_delay: expected a Go duration such as 300ms or 10s, got true`,
      `${file}: daemon_shutdown_grace: expected a Go duration such as 300ms or 10s, got -5`,
      `${file}: daemon_poll_interval: expected a Go duration > 0 such as 300ms or 10s, got 0`,
      `${file}: daemon_preupgrade_max_retries: expected a whole number ≥ 0, got 1.5`,
      `${file}: cosmovisor_timeformat_logs: expected one of layout, ansic, unixdate, rubydate, rfc822, rfc822z, rfc850, rfc1123, rfc1123z, rfc3339, rfc3339nano, kitchen, got "unix"`,
    ]);
    // An environment variable of digits is not a duration, as Go's time.ParseDuration says.
    writeFileSync(file, cosmovisorConfigToml(home, "simd"));
    expect(
      failure(() => loadVisorConfig({ DAEMON_POLL_INTERVAL: "300000000" }, { configFile: file })).message,
    ).toBe('DAEMON_POLL_INTERVAL: expected a Go duration > 0 such as 300ms or 10s, got "300000000"');
    writeFileSync(file, "daemon_home = \n");
    expect(failure(() => loadVisorConfig({}, { configFile: file })).message).toMatch(
      new RegExp(`^cannot parse ${file}: `),
    );
    expect(failure(() => loadVisorConfig({}, { configFile: join(root, "nope.toml") })).message).toBe(
      `config file ${join(root, "nope.toml")} does not exist`,
    );
  });

  it("ignores keys of no setting, as cosmovisor does, and names each in a warning", () => {
    writeFileSync(file, `${cosmovisorConfigToml(home, "simd")}daemon_pol_interval = 5\n[extra]\nx = 1\n`);
    const warnings: string[] = [];
    const c = loadVisorConfig({}, { configFile: file, warn: (m) => warnings.push(m) });
    expect(c.pollIntervalMs).toBe(300);
    expect(warnings).toEqual([
      `${file}: unknown key "daemon_pol_interval" ignored`,
      `${file}: unknown key "extra" ignored`,
    ]);
  });

  it("quotes strings as go-toml v2 does", () => {
    expect(goTomlString("/home/x")).toBe("'/home/x'");
    expect(goTomlString("")).toBe("''");
    expect(goTomlString(`it's "x"\\y`)).toBe(`"it's \\"x\\"\\\\y"`);
    expect(goTomlString("a\tb\nc")).toBe('"a\\tb\\nc"');
  });

  it("writes controls other than tab (\\x01, \\x7f) as escapes that read back as written; a tab stays literal", () => {
    expect(goTomlString("a\x01b\x7fc")).toBe('"a\\u0001b\\u007Fc"');
    expect(goTomlString("a\tb")).toBe("'a\tb'");
    const command = "/bin/notify \x01\x7f\tx";
    writeFileSync(file, cosmovisorConfigToml(home, "simd"));
    const rendered = renderConfigToml(
      configuredSettings({ VISOR_NOTIFY_CMD: command }, { configFile: file }),
    );
    const again = join(root, "again.toml");
    writeFileSync(again, rendered);
    expect(loadVisorConfig({}, { configFile: again }).notifyCommand).toBe(command);
  });
});

describe("--cosmovisor-config in visor's arguments", () => {
  it("is visor's before the command, -c included, in every form", () => {
    expect(takeCosmovisorConfig(["--cosmovisor-config", "f", "run", "start"])).toEqual({
      configFile: "f",
      argv: ["run", "start"],
    });
    expect(takeCosmovisorConfig(["-c", "f", "run", "start", "-c", "x"])).toEqual({
      configFile: "f",
      argv: ["run", "start", "-c", "x"],
    });
    expect(takeCosmovisorConfig(["--cosmovisor-config=f", "config"])).toEqual({
      configFile: "f",
      argv: ["config"],
    });
    expect(takeCosmovisorConfig(["config", "-c", "f"])).toEqual({ configFile: "f", argv: ["config"] });
  });

  it("after run, only the long flag is visor's (any case, one or two dashes, as cosmovisor takes it); -c is the daemon's", () => {
    expect(
      takeCosmovisorConfig(["run", "start", "--home", "h", "--cosmovisor-config", "f", "-c", "x"]),
    ).toEqual({
      configFile: "f",
      argv: ["run", "start", "--home", "h", "-c", "x"],
    });
    expect(takeCosmovisorConfig(["run", "-COSMOVISOR-CONFIG", "f", "start"])).toEqual({
      configFile: "f",
      argv: ["run", "start"],
    });
    expect(takeCosmovisorConfig(["run", "start", "--cosmovisor-config=f"])).toEqual({
      configFile: "f",
      argv: ["run", "start"],
    });
    expect(takeCosmovisorConfig(["run", "start", "--home", "h"])).toEqual({
      configFile: undefined,
      argv: ["run", "start", "--home", "h"],
    });
  });

  it("refuses a flag with no value, or a second one, instead of passing it on", () => {
    expect(() => takeCosmovisorConfig(["run", "start", "--cosmovisor-config"])).toThrow(
      "--cosmovisor-config requires an argument",
    );
    expect(() => takeCosmovisorConfig(["-c", "f", "run", "--cosmovisor-config", "g"])).toThrow(
      "--cosmovisor-config given twice",
    );
  });
});
