import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goPlatform } from "@chaind/core/go-platform";
import { LineCollector } from "@chaind/harness/line-collector";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cosmovisorConfigToml } from "./cosmovisor-config-toml.js";
import { fakeBinary, sha256File, VISOR, writeNodeIdentity } from "./visor-home.js";

/**
 * An operator moving from cosmovisor: its config.toml, passed with --cosmovisor-config, and no DAEMON_*
 * variable anywhere. The fake daemon finds its home by --home, as a Cosmos daemon does, and records its
 * arguments, so a test sees what reached it.
 */
describe("visor with cosmovisor 1.6's config.toml and --cosmovisor-config", () => {
  let root: string;
  let home: string;
  let configFile: string;
  let server: ReleaseServer;

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "visor-cvcfg-"));
    home = join(root, "home");
    writeNodeIdentity(home);
    // No node API to ask: gRPC is named in the file (nothing listens on port 1), RPC is turned off here.
    writeFileSync(join(home, "config", "config.toml"), '[rpc]\nladdr = ""\n');
    configFile = join(root, "cosmovisor-config.toml");
    // As `cosmovisor init` 1.6 writes it, with the values an operator would have edited in.
    writeFileSync(
      configFile,
      cosmovisorConfigToml(home, "fake")
        .replace("daemon_allow_download_binaries = false", "daemon_allow_download_binaries = true")
        .replace("daemon_poll_interval = 300000000", "daemon_poll_interval = 50000000")
        .replace("daemon_grpc_address = 'localhost:9090'", "daemon_grpc_address = '127.0.0.1:1'")
        .replace("cosmovisor_color_logs = true", "cosmovisor_color_logs = false"),
    );
    mkdirSync(join(root, "served"));
    server = await ReleaseServer.start({ dir: join(root, "served") });
  });
  afterEach(async () => {
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Only PATH and the fake daemon's own knobs: no DAEMON_*, no COSMOVISOR_*, no VISOR_*. */
  const bareEnv = (extra: Record<string, string> = {}) => ({ PATH: process.env.PATH ?? "", ...extra });

  const visor = (args: string[], extra: Record<string, string> = {}) =>
    execa("node", [VISOR, ...args], { env: bareEnv(extra), extendEnv: false, reject: false, all: true });

  function start(args: string[], extra: Record<string, string> = {}) {
    const proc = execa("node", [VISOR, ...args], {
      env: bareEnv(extra),
      extendEnv: false,
      reject: false,
      all: true,
      buffer: false,
    });
    const out = new LineCollector(proc.all!);
    return { proc, out };
  }

  const daemonArgv = () =>
    readFileSync(join(home, "daemon-argv"), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as string[]);

  /** v1 installed from the file's settings; v2 served at a checksummed URL named by the plan's info. */
  async function installV1AndServeV2(): Promise<string> {
    const init = await visor(["--cosmovisor-config", configFile, "init", fakeBinary(root, "v1")]);
    expect(init.exitCode, init.all).toBe(0);
    copyFileSync(fakeBinary(root, "v2"), join(root, "served", "fake-v2"));
    const url = `${server.fileUrl("fake-v2")}?checksum=sha256:${sha256File(join(root, "served", "fake-v2"))}`;
    return JSON.stringify({ binaries: { [goPlatform()]: url } });
  }

  it("runs a whole upgrade with no DAEMON_* variable set, the flag after run, and never passes it on", async () => {
    const info = await installV1AndServeV2();
    const v = start(["run", "start", "--home", home, "--cosmovisor-config", configFile], {
      FAKE_HALTS: "v1:5:v2",
      FAKE_INFO: info,
    });
    await v.out.waitFor(/v2 running from height 4/, 30_000);
    await v.out.waitFor(/v2 height 6/, 30_000);
    expect(readlinkSync(join(home, "cosmovisor", "current"))).toBe("upgrades/v2");
    expect(readdirSync(home).filter((f) => f.startsWith("data-backup-"))).toHaveLength(1);
    v.proc.kill("SIGTERM");
    expect((await v.proc).exitCode).toBe(0);
    // v1 and then v2 started with the daemon's arguments alone.
    expect(daemonArgv()).toEqual([
      ["start", "--home", home],
      ["start", "--home", home],
    ]);
  });

  it("takes the flag before run too (-c as well), passes -c after run to the daemon, and the environment overrides the file", async () => {
    const info = await installV1AndServeV2();
    // DAEMON_RESTART_AFTER_UPGRADE=false from the environment wins over the file's true: exit 0 after the switch.
    const r = await visor(["-c", configFile, "run", "start", "--home", home, "-c", "daemon-own"], {
      FAKE_HALTS: "v1:5:v2",
      FAKE_INFO: info,
      DAEMON_RESTART_AFTER_UPGRADE: "false",
    });
    expect(r.exitCode, r.all).toBe(0);
    expect(readlinkSync(join(home, "cosmovisor", "current"))).toBe("upgrades/v2");
    expect(r.all).not.toContain("v2 running");
    expect(daemonArgv()).toEqual([["start", "--home", home, "-c", "daemon-own"]]);

    const again = start(["--cosmovisor-config", configFile, "run", "start", "--home", home]);
    await again.out.waitFor(/v2 running from height 4/, 30_000);
    again.proc.kill("SIGTERM");
    expect((await again.proc).exitCode).toBe(0);
    expect(daemonArgv().at(-1)).toEqual(["start", "--home", home]);
  });

  it("init writes cosmovisor/config.toml as cosmovisor 1.6 does, with the values in effect, and keeps an existing one", async () => {
    const env = {
      DAEMON_HOME: home,
      DAEMON_NAME: "fake",
      DAEMON_POLL_INTERVAL: "50ms",
      UNSAFE_SKIP_BACKUP: "true",
    };
    const init = await visor(["init", fakeBinary(root, "v1")], env);
    expect(init.exitCode, init.all).toBe(0);
    const written = join(home, "cosmovisor", "config.toml");
    expect(init.stdout).toContain(`wrote ${written}`);
    const text = readFileSync(written, "utf8");
    const cosmovisorPart = cosmovisorConfigToml(home, "fake")
      .replace("daemon_poll_interval = 300000000", "daemon_poll_interval = 50000000")
      .replace("unsafe_skip_backup = false", "unsafe_skip_backup = true")
      // Left unset, visor goes on reading the node's app.toml for it; cosmovisor writes its default.
      .replace("daemon_grpc_address = 'localhost:9090'", "daemon_grpc_address = ''");
    expect(
      text.startsWith(`${cosmovisorPart}\n# visor's own settings; cosmovisor ignores these keys\n`),
    ).toBe(true);
    expect(text).toContain("\nvisor_download_stall_timeout = 30000000000\n");
    expect(statSync(written).mode & 0o777).toBe(0o600);
    // The file alone is the whole configuration now: `config` prints the same with no variable set.
    const fromEnv = await visor(["config"], env);
    const fromFile = await visor(["config", "--cosmovisor-config", written]);
    expect(fromFile.exitCode, fromFile.all).toBe(0);
    expect(fromFile.stdout).toBe(fromEnv.stdout);
    expect(fromFile.stdout).toContain("  DAEMON_POLL_INTERVAL: 50ms\n");
    expect(fromFile.stdout).toContain("  COSMOVISOR_TIMEFORMAT_LOGS: 3:04PM\n");
    const toml = await visor(["config", "-o", "toml", "-c", written]);
    expect(toml.stdout).toBe(text.trimEnd());
    // A second init keeps the operator's file.
    writeFileSync(written, `${text}# edited\n`);
    const second = await visor(["init", fakeBinary(root, "v1")], env);
    expect(second.stdout).toContain(`${written} already exists; leaving it`);
    expect(readFileSync(written, "utf8")).toBe(`${text}# edited\n`);
  });

  it("a bad value names the file and the key, and visor exits 1 before starting anything", async () => {
    await installV1AndServeV2();
    writeFileSync(
      configFile,
      cosmovisorConfigToml(home, "fake").replace(
        "daemon_poll_interval = 300000000",
        "daemon_poll_interval = '300'",
      ),
    );
    const r = await visor(["run", "start", "--home", home, "--cosmovisor-config", configFile]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toBe(
      `Error: ${configFile}: daemon_poll_interval: expected a Go duration > 0 such as 300ms or 10s, got "300"`,
    );
    const missing = await visor(["run", "start", "--cosmovisor-config"]);
    expect(missing.stderr.trim()).toBe("Error: --cosmovisor-config requires an argument");
    expect(() => readFileSync(join(home, "daemon-argv"))).toThrow();
  });
});
