import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { goPlatform } from "@chaind/core/go-platform";
import { ReleaseServer } from "@chaind/harness/release-server";
import { c as createTar } from "tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, sha256File, visorHome } from "./visor-home.js";

describe("visor: cosmovisor's contract with a daemon that is not chaind", () => {
  let h: ReturnType<typeof visorHome>;
  let server: ReleaseServer;
  let files: string;

  beforeEach(async () => {
    h = visorHome();
    files = join(h.root, "served");
    mkdirSync(files);
    server = await ReleaseServer.start({ dir: files });
  });
  afterEach(async () => {
    await server.close();
    h.cleanup();
  });

  /** v1 installed by `visor init`, halting at `height` for plan v2 whose binary the server offers. */
  async function setup(opts: { height?: number; archive?: boolean } = {}) {
    const v1 = fakeBinary(h.root, "v1");
    const init = await h.visor(["init", v1]);
    expect(init.exitCode, init.all).toBe(0);
    const v2 = fakeBinary(h.root, "v2");
    let served = "fake-v2";
    if (opts.archive) {
      const stage = join(h.root, "stage");
      mkdirSync(join(stage, "bin"), { recursive: true });
      copyFileSync(v2, join(stage, "bin", "fake"));
      writeFileSync(join(stage, "README"), "release notes\n");
      served = "fake-v2.tar.gz";
      await createTar({ gzip: true, file: join(files, served), cwd: stage }, ["bin", "README"]);
    } else copyFileSync(v2, join(files, served));
    const url = `${server.fileUrl(served)}?checksum=sha256:${sha256File(join(files, served))}`;
    return {
      url,
      served,
      env: { FAKE_HALTS: `v1:${opts.height ?? 5}:v2`, DAEMON_ALLOW_DOWNLOAD_BINARIES: "true" },
    };
  }

  const current = () => readlinkSync(join(h.home, "cosmovisor", "current"));

  it("init lays out genesis/bin and a relative current link; config and version answer", async () => {
    await setup();
    expect(current()).toBe("genesis");
    expect(statSync(join(h.home, "cosmovisor/genesis/bin/fake")).mode & 0o777).toBe(0o755);
    const version = await h.visor(["version", "-o", "json"]);
    expect(JSON.parse(version.stdout)).toMatchObject({ app_version: { name: "fake", version: "v1" } });
    const config = await h.visor(["config"]);
    expect(config.stdout).toContain("DAEMON_POLL_INTERVAL: 50ms");
    expect(config.stdout).toContain("DAEMON_RESTART_AFTER_UPGRADE: true");
    const bad = await h.visor(["config"], { DAEMON_RESTART_AFTER_UPGRADE: "yes" });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.trim()).toBe('Error: DAEMON_RESTART_AFTER_UPGRADE: expected true or false, got "yes"');
    const several = await h.visor(["config"], { DAEMON_POLL_INTERVAL: "0s", VISOR_BACKUP_KEEP: "-1" });
    expect(several.exitCode).toBe(1);
    expect(several.stderr.trim().split("\n")).toEqual([
      'Error: DAEMON_POLL_INTERVAL: expected a Go duration > 0 such as 300ms or 10s, got "0s"',
      'VISOR_BACKUP_KEEP: expected a whole number ≥ 0, got "-1"',
    ]);
    const noHome = await h.visor(["config"], { DAEMON_HOME: "relative/path" });
    expect(noHome.stderr.trim()).toBe('Error: DAEMON_HOME: expected an absolute path, got "relative/path"');
  });

  it("downloads a single-file binary, verifies it, backs up data, switches current and restarts", async () => {
    const { url, env } = await setup();
    const info = JSON.stringify({
      binaries: { [goPlatform()]: url, "linux/fakearch": "http://127.0.0.1:1/never" },
    });
    const v = h.start(["start"], { ...env, FAKE_INFO: info });
    await v.waitFor(/v2 running from height 4/);
    await v.waitFor(/v2 height 6/);
    expect(current()).toBe("upgrades/v2");
    expect(
      JSON.parse(readFileSync(join(h.home, "cosmovisor/upgrades/v2/upgrade-info.json"), "utf8")),
    ).toMatchObject({ name: "v2", height: 5 });
    const backups = readdirSync(h.home).filter((f) => f.startsWith("data-backup-"));
    expect(backups).toHaveLength(1);
    // The backup is the data folder as it was at the halt, file for file.
    expect(readdirSync(join(h.home, backups[0])).sort()).toEqual(["height", "upgrade-info.json"]);
    expect(readFileSync(join(h.home, backups[0], "height"), "utf8")).toBe("4");
    expect(readFileSync(join(h.home, backups[0], "upgrade-info.json"), "utf8")).toContain('"name":"v2"');
    expect(readFileSync(join(h.home, "preupgrade-calls"), "utf8")).toBe("v2:0\n");
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(v.output).toContain("v2 stopping");
  });

  it("unpacks a tar.gz named by a URL to a plan-info document, and restart off exits 0 after the switch", async () => {
    const { url, env } = await setup({ archive: true });
    writeFileSync(join(files, "plan.json"), JSON.stringify({ binaries: { any: url } }));
    const doc = `${server.fileUrl("plan.json")}?checksum=sha256:${sha256File(join(files, "plan.json"))}`;
    const v = h.start(["start"], {
      ...env,
      FAKE_INFO: doc,
      DAEMON_RESTART_AFTER_UPGRADE: "false",
      UNSAFE_SKIP_BACKUP: "true",
    });
    expect(await v.exit()).toBe(0);
    expect(current()).toBe("upgrades/v2");
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v2/README"))).toBe(true);
    expect(v.output).not.toContain("v2 running");
    expect(readdirSync(h.home).filter((f) => f.startsWith("data-backup-"))).toHaveLength(0);
  });

  it("refuses a wrong checksum: the old binary stays current, nothing unverified is left, visor exits non-zero", async () => {
    const { url, env } = await setup();
    const wrong = url.replace(/sha256:[0-9a-f]+/, `sha256:${"0".repeat(64)}`);
    const v = h.start(["start"], { ...env, FAKE_INFO: JSON.stringify({ binaries: { any: wrong } }) });
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(
      /Error: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/fake-v2: expected sha256:0{64}/,
    );
    expect(current()).toBe("genesis");
    expect(readdirSync(join(h.home, "cosmovisor/upgrades"))).toEqual([]);
    expect(server.requests.get("fake-v2")).toBe(1);
  });

  it("DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM refuses a URL without one", async () => {
    const { url, env } = await setup();
    const bare = url.replace(/\?checksum=.*/, "");
    const v = h.start(["start"], {
      ...env,
      DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
      FAKE_INFO: JSON.stringify({ binaries: { any: bare } }),
    });
    expect(await v.exit()).toBe(1);
    expect(v.output).toContain(`Error: missing checksum query parameter in ${bare}`);
  });

  it("retries a download after 500s and a dropped connection", async () => {
    const { url, env, served } = await setup();
    server.injectFault(served, "status-500", 1);
    const v = h.start(["start"], {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
    });
    await v.waitFor(/v2 running/);
    expect(server.requests.get(served)).toBe(2);
    expect(v.output).toContain("download failed, retrying");
    v.proc.kill("SIGTERM");
    await v.exit();
  });

  it("never misses: an upgrade-info.json written while visor was down is applied before anything runs", async () => {
    const { url, env } = await setup();
    mkdirSync(join(h.home, "data"), { recursive: true });
    writeFileSync(
      join(h.home, "data/upgrade-info.json"),
      JSON.stringify({ name: "v2", height: 5, info: JSON.stringify({ binaries: { any: url } }) }),
    );
    const v = h.start(["start"], { ...env, UNSAFE_SKIP_BACKUP: "true" });
    await v.waitFor(/v2 running/);
    expect(v.output).not.toContain("v1 running");
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("honours --unsafe-skip-upgrades in the daemon's args: no upgrade, the daemon's error is visor's", async () => {
    const { url, env } = await setup();
    const v = h.start(["start", "--unsafe-skip-upgrades", "5"], {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
    });
    expect(await v.exit()).toBe(1);
    expect(v.output).toContain("upgrade height is in --unsafe-skip-upgrades");
    expect(current()).toBe("genesis");
    expect(server.requests.get("fake-v2")).toBeUndefined();
  });

  it("uses an operator-provided binary from add-upgrade with downloads disabled", async () => {
    const { env } = await setup();
    const v2 = fakeBinary(h.root, "v2");
    // A chaind release's shipped code cache travels with the binary, named after it.
    writeFileSync(`${v2}.code-cache`, "compiled");
    expect((await h.visor(["add-upgrade", "v2", v2])).exitCode).toBe(0);
    expect(readFileSync(join(h.home, "cosmovisor/upgrades/v2/bin/fake.code-cache"), "utf8")).toBe("compiled");
    // One that others may write (planted beside a binary in /tmp, say) is code no one vouches for: left out.
    const v3 = fakeBinary(h.root, "v3");
    writeFileSync(`${v3}.code-cache`, "planted");
    chmodSync(`${v3}.code-cache`, 0o666);
    expect((await h.visor(["add-upgrade", "v3", v3])).exitCode).toBe(0);
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v3/bin/fake"))).toBe(true);
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v3/bin/fake.code-cache"))).toBe(false);
    const again = await h.visor(["add-upgrade", "v2", v2]);
    expect(again.stderr).toContain("already exists");
    const v = h.start(["start"], {
      ...env,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "false",
      UNSAFE_SKIP_BACKUP: "true",
    });
    await v.waitFor(/v2 running/);
    v.proc.kill("SIGTERM");
    await v.exit();
    expect(server.requests.size).toBe(0);
  });

  it("stops with a clear error when the binary is missing and downloads are off", async () => {
    const { env } = await setup();
    const v = h.start(["start"], { ...env, DAEMON_ALLOW_DOWNLOAD_BINARIES: "false" });
    expect(await v.exit()).toBe(1);
    expect(v.output).toContain("binary not present, downloading disabled");
  });

  it("pre-upgrade: retries on 31 up to DAEMON_PREUPGRADE_MAX_RETRIES, goes on after 1, stops on 30", async () => {
    const { url, env } = await setup();
    const base = {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
    };
    writeFileSync(join(h.home, "preupgrade-codes"), "31,31,0");
    const v = h.start(["start"], { ...base, DAEMON_PREUPGRADE_MAX_RETRIES: "2" });
    await v.waitFor(/v2 running/);
    v.proc.kill("SIGTERM");
    await v.exit();
    expect(readFileSync(join(h.home, "preupgrade-calls"), "utf8")).toBe("v2:31\nv2:31\nv2:0\n");
  });

  it("pre-upgrade exit 30 stops the upgrade with an error", async () => {
    const { url, env } = await setup();
    writeFileSync(join(h.home, "preupgrade-codes"), "30");
    const v = h.start(["start"], {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
    });
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(/Error: pre-upgrade of .* failed \(exit status 30\)/);
  });

  it("runs COSMOVISOR_CUSTOM_PREUPGRADE with the plan name and height from DAEMON_HOME", async () => {
    const { url, env } = await setup();
    const script = join(h.home, "cosmovisor", "custom.sh");
    writeFileSync(script, '#!/bin/sh\necho "$1 $2 $(pwd)" > custom-ran\n');
    statSync(script);
    await import("node:fs").then((fs) => fs.chmodSync(script, 0o755));
    const v = h.start(["start"], {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
      COSMOVISOR_CUSTOM_PREUPGRADE: "custom.sh",
    });
    await v.waitFor(/v2 running/);
    v.proc.kill("SIGTERM");
    await v.exit();
    expect(readFileSync(join(h.home, "custom-ran"), "utf8").trim()).toBe(`v2 5 ${h.home}`);
  });

  it("refuses archives holding symbolic links (this one would lead outside the upgrade folder)", async () => {
    const { env } = await setup();
    const stage = join(h.root, "evil");
    mkdirSync(join(stage, "bin"), { recursive: true });
    writeFileSync(join(stage, "bin", "fake"), "#!/bin/sh\n");
    const { symlinkSync } = await import("node:fs");
    symlinkSync("/etc/passwd", join(stage, "bin", "escape"));
    await createTar({ gzip: true, file: join(files, "evil.tar.gz"), cwd: stage }, ["bin"]);
    const url = `${server.fileUrl("evil.tar.gz")}?checksum=sha256:${sha256File(join(files, "evil.tar.gz"))}`;
    const v = h.start(["start"], {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
    });
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(
      /refusing archive: entry "bin\/escape" is a symbolic link \(-> "\/etc\/passwd"\): visor, like cosmovisor, unpacks none/,
    );
    expect(readdirSync(join(h.home, "cosmovisor/upgrades"))).toEqual([]);
  });

  it("refuses plan names that would escape the upgrades folder", async () => {
    await setup();
    mkdirSync(join(h.home, "data"), { recursive: true });
    for (const name of ["..", "a\u0001b", " padded"]) {
      writeFileSync(join(h.home, "data/upgrade-info.json"), JSON.stringify({ name, height: 5, info: "" }));
      const v = h.start(["start"], { DAEMON_ALLOW_DOWNLOAD_BINARIES: "true", UNSAFE_SKIP_BACKUP: "true" });
      expect(await v.exit()).toBe(1);
      expect(v.output).toContain("Error: invalid upgrade name");
    }
    // Nothing but what any run leaves (visor.lock/ is kept: only its lock comes and goes).
    expect(readdirSync(join(h.home, "cosmovisor")).sort()).toEqual([
      "config.toml",
      "current",
      "genesis",
      "visor-status.json",
      "visor.lock",
    ]);
  });

  it("DAEMON_SHUTDOWN_GRACE: SIGINT first, SIGKILL when the daemon ignores it", async () => {
    const { url } = await setup();
    const v2 = fakeBinary(h.root, "v2");
    await h.visor(["add-upgrade", "v2", v2]);
    const v = h.start(["start"], {
      FAKE_IGNORE_SIGINT: "1",
      DAEMON_SHUTDOWN_GRACE: "300ms",
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_INFO: url,
    });
    await v.waitFor(/v1 height 2/);
    writeFileSync(
      join(h.home, "data/upgrade-info.json"),
      JSON.stringify({ name: "v2", height: 3, info: "" }),
    );
    await v.waitFor(/v1 ignoring signal/);
    await v.waitFor(/did not stop within DAEMON_SHUTDOWN_GRACE: killing it/);
    await v.waitFor(/v2 running/);
    // The new daemon ignores SIGINT/SIGTERM too: visor's own shutdown kills it after the grace, leaving nothing.
    v.proc.kill("SIGTERM");
    const code = await v.exit();
    expect(v.output, v.output).toContain("v2 ignoring signal");
    expect(code).not.toBe(-1);
  });

  it("SIGTERM while an upgrade is applied: the upgrade finishes, no new daemon starts, visor exits", async () => {
    const { url, env } = await setup();
    const v = h.start(["start"], {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
      DAEMON_RESTART_DELAY: "1s",
    });
    await v.waitFor(/waiting before the upgrade/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(143);
    expect(v.output).toMatch(/upgrade complete/);
    expect(v.output).not.toMatch(/v2 running/);
    expect(v.lines.filter((l) => /starting daemon/.test(l))).toHaveLength(1);
    expect(current()).toBe("upgrades/v2");
  });

  it("a visor killed during the restart delay finishes the upgrade when started again", async () => {
    const { url, env } = await setup();
    const base = {
      ...env,
      FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
      UNSAFE_SKIP_BACKUP: "true",
    };
    const first = h.start(["start"], { ...base, DAEMON_RESTART_DELAY: "10s" });
    await first.waitFor(/waiting before the upgrade/);
    first.proc.kill("SIGKILL");
    await first.exit();
    expect(current()).toBe("genesis");
    const second = h.start(["start"], base);
    await second.waitFor(/v2 running/);
    expect(current()).toBe("upgrades/v2");
    second.proc.kill("SIGTERM");
    expect(await second.exit()).toBe(0);
  });
});
