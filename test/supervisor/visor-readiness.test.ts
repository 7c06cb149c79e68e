import {
  closeSync,
  copyFileSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { freePort } from "@chaind/harness/free-listener-ports";
import { ReleaseServer } from "@chaind/harness/release-server";
import { ed25519 } from "@noble/curves/ed25519.js";
import { describe, expect, it, type TestContext } from "vitest";
import { FakeNodeApi } from "./fake-node-api.js";
import { fakeBinary, sha256File, visorHome } from "./visor-home.js";

/**
 * Issue 32: once visor knows of the next upgrade (the node's plan, a batch entry), it checks at once, and again
 * before the height, what the halt will need, and says what will fail as an ERR line, in visor-status.json
 * (`next_upgrade`), in `visor status` and in the metrics. Before, a missing artifact or signature surfaced only
 * at the halt. Real visor and fake daemon processes, a real release server and node API on loopback.
 */
async function setup(onTestFinished: TestContext["onTestFinished"]) {
  const h = visorHome();
  const files = join(h.root, "served");
  mkdirSync(files);
  const releases = await ReleaseServer.start({ dir: files });
  const node = await FakeNodeApi.start({ home: h.home, identity: h.identity });
  onTestFinished(async () => {
    await node.close();
    await releases.close();
    h.cleanup();
  });
  expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
  const v2 = fakeBinary(h.root, "v2");
  const sha = sha256File(v2);
  const info = JSON.stringify({ binaries: { any: `${releases.fileUrl("fake-v2")}?checksum=sha256:${sha}` } });
  const status = async () => {
    const r = await h.visor(["status", "-o", "json"]);
    expect(r.exitCode, r.all).toBe(0);
    return JSON.parse(r.stdout);
  };
  return { h, files, releases, node, v2, sha, info, status };
}

describe.concurrent("visor checks the next upgrade before its halt", { timeout: 120_000 }, () => {
  it("an artifact its server does not serve: ERR at once, status and metrics say not ready; ready once it is served", async ({
    onTestFinished,
  }) => {
    const { h, files, node, v2, info, status } = await setup(onTestFinished);
    node.plan = { name: "v2", height: 60, info };
    const port = await freePort();
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      VISOR_METRICS_ADDRESS: `127.0.0.1:${port}`,
      FAKE_BLOCK_MS: "200",
    });
    const err = await v.waitFor(
      /ERR.*upgrade v2 at height 60 will fail at the halt: cannot download http:\/\/127\.0\.0\.1:\d+\/fake-v2: HTTP 404.*/,
    );
    // Long before the height: the node is still far from 60.
    expect(node.height()).toBeLessThan(50);
    expect(err[0]).toMatch(/ source=node/);
    const shown = await status();
    expect(shown.next_upgrade).toMatchObject({
      name: "v2",
      height: 60,
      source: "node",
      ready: false,
      binary: "download",
      signature: "not_required",
    });
    expect(shown.next_upgrade.problems).toEqual([expect.stringMatching(/^cannot download .*404/)]);
    const text = (await h.visor(["status"])).stdout;
    expect(text).toMatch(/^next upgrade: +v2 at height 60 \(from node.*\): NOT READY$/m);
    expect(text).toMatch(/^ {2}problem: +cannot download/m);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^visor_next_upgrade_height\{plan="v2",source="node"\} 60$/m);
    expect(metrics).toMatch(/^visor_next_upgrade_ready\{plan="v2",source="node"\} 0$/m);

    // Fixed before the height: the check before the halt (or the periodic one) finds it ready.
    copyFileSync(v2, join(files, "fake-v2"));
    await v.waitFor(/INF.*next upgrade is ready .*plan=v2 .*binary=download/, 90_000);
    const after = await status();
    expect(after.next_upgrade).toMatchObject({ name: "v2", ready: true, problems: [] });
    expect(after.next_upgrade.estimated_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    const later = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(later).toMatch(/^visor_next_upgrade_ready\{plan="v2",source="node"\} 1$/m);
    expect(later).toMatch(/^visor_next_upgrade_estimated_time_seconds\{plan="v2",source="node"\} \d+/m);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("VISOR_TRUSTED_KEYS and no signature published: ERR at once, long before the halt", async ({
    onTestFinished,
  }) => {
    const { h, files, releases, node, v2, info, status } = await setup(onTestFinished);
    copyFileSync(v2, join(files, "fake-v2"));
    node.plan = { name: "v2", height: 500, info };
    const key = Buffer.from(ed25519.getPublicKey(ed25519.utils.randomSecretKey())).toString("hex");
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      VISOR_TRUSTED_KEYS: key,
    });
    await v.waitFor(
      /ERR.*upgrade v2 at height 500 will fail at the halt: cannot fetch signature http:\/\/127\.0\.0\.1:\d+\/fake-v2\.sig/,
    );
    expect((await status()).next_upgrade).toMatchObject({ ready: false, signature: "failed" });
    expect(releases.requests.get("fake-v2.sig")).toBeGreaterThanOrEqual(1);
    // Nothing was installed or staged: the check only looks.
    expect(existsSync(join(h.home, "cosmovisor", "upgrades", "v2"))).toBe(false);
    expect(existsSync(join(h.home, "cosmovisor", "prefetch", "v2"))).toBe(false);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("a batch entry whose binary was removed, downloads off: ERR naming the missing binary; status lists the queue", async ({
    onTestFinished,
  }) => {
    const { h, v2, status } = await setup(onTestFinished);
    for (const [name, height] of [
      ["v2", "400"],
      ["v3", "900"],
    ]) {
      const add = await h.visor(["add-upgrade", name, v2, "--upgrade-height", height]);
      expect(add.exitCode, add.all).toBe(0);
    }
    const bin = join(h.home, "cosmovisor", "upgrades", "v2", "bin", "fake");
    rmSync(bin);
    const v = h.start(["start"]);
    await v.waitFor(
      new RegExp(
        `ERR.*upgrade v2 at height 400 will fail at the halt: binary not present, downloading disabled: expected ${bin}`,
      ),
    );
    const shown = await status();
    expect(shown.next_upgrade).toMatchObject({
      name: "v2",
      height: 400,
      source: "batch",
      ready: false,
      binary: "none",
    });
    expect(shown.batch).toEqual([
      { name: "v2", height: 400 },
      { name: "v3", height: 900 },
    ]);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("a pre-fetch whose bytes do not match the checksum: ERR at once that the halt will fail, not only a WRN", async ({
    onTestFinished,
  }) => {
    const { h, files, node, info, status } = await setup(onTestFinished);
    // The release host serves other bytes than the plan's checksum names.
    writeFileSync(join(files, "fake-v2"), "#!/bin/sh\necho tampered\n");
    node.plan = { name: "v2", height: 500, info };
    const v = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      VISOR_PREFETCH: "true",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    });
    await v.waitFor(
      /ERR.*upgrade v2 at height 500 will fail at the halt: its pre-fetch failed: checksum mismatch/,
    );
    // No "ready" was claimed while the pre-fetch ran.
    expect(v.output).not.toMatch(/next upgrade is ready/);
    const shown = await status();
    expect(shown.next_upgrade).toMatchObject({ name: "v2", ready: false, binary: "download" });
    expect(shown.prefetch).toMatchObject({ plan: "v2", state: "failed" });
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("a data folder whose backup will not fit: ERR at once under visor run, and prepare-upgrade exits 1", async ({
    onTestFinished,
  }) => {
    const { h, files, node, v2, info } = await setup(onTestFinished);
    copyFileSync(v2, join(files, "fake-v2"));
    // A sparse file: 1 TiB to copy for the backup, no disk used now (the backup counts it as the halt would).
    mkdirSync(join(h.home, "data"), { recursive: true });
    const fd = openSync(join(h.home, "data", "huge.log"), "w");
    ftruncateSync(fd, 1024 ** 4);
    closeSync(fd);
    expect((await h.visor(["add-upgrade", "v2", v2, "--upgrade-height", "500"])).exitCode).toBe(0);
    const v = h.start(["start"]);
    await v.waitFor(
      /ERR.*upgrade v2 at height 500 will fail at the halt: the data backup at the halt will not fit: .* has [\d.]+ [KM]iB free, and 1048576\.0 MiB are needed.*UNSAFE_SKIP_BACKUP=true/,
    );
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);

    node.plan = { name: "v3", height: 600, info };
    const prepared = await h.visor(["prepare-upgrade"], {
      VISOR_RPC_ADDRESS: node.url,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    });
    expect(prepared.exitCode).toBe(1);
    expect(prepared.stdout).toContain("upgrade v3 at height 600: artifact verified and staged");
    expect(prepared.stderr).toMatch(
      /^Error: upgrade v3 at height 600 is not ready: the data backup at the halt will not fit: /m,
    );
    // With the backup off, the same plan is ready.
    const skipped = await h.visor(["prepare-upgrade"], {
      VISOR_RPC_ADDRESS: node.url,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
    });
    expect(skipped.exitCode, skipped.all).toBe(0);
  });
});

describe("visor status tells the truth", { timeout: 120_000 }, () => {
  it("after an upgrade, the applied plan is not pending; a cancelled plan's pre-fetch state disappears", async ({
    onTestFinished,
  }) => {
    const { h, files, node, v2, info, status } = await setup(onTestFinished);
    copyFileSync(v2, join(files, "fake-v2"));
    expect((await h.visor(["add-upgrade", "v2", v2])).exitCode).toBe(0);
    const first = h.start(["start"], { UNSAFE_SKIP_BACKUP: "true", FAKE_HALTS: "v1:3:v2" });
    await first.waitFor(/v2 height 4/);
    first.proc.kill("SIGTERM");
    expect(await first.exit()).toBe(0);
    const applied = await status();
    // upgrade-info.json still names v2, which current runs: nothing is pending.
    expect(applied.current_plan).toMatchObject({ name: "v2", height: 3 });
    expect(applied.pending).toBeNull();
    expect((await h.visor(["status"])).stdout).toMatch(/^pending: +none$/m);

    // v3 scheduled and pre-fetched, then cancelled.
    writeFileSync(join(files, "fake-v3"), "#!/bin/sh\necho v3\n");
    const v3Info = JSON.stringify({
      binaries: {
        any: `${(info.match(/http:\/\/[^/]+/) ?? [""])[0]}/fake-v3?checksum=sha256:${sha256File(join(files, "fake-v3"))}`,
      },
    });
    node.plan = { name: "v3", height: 500, info: v3Info };
    const second = h.start(["start"], {
      VISOR_RPC_ADDRESS: node.url,
      VISOR_PREFETCH: "true",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    });
    await second.waitFor(/pre-fetched and verified .*plan=v3/);
    await second.waitFor(/next upgrade is ready .*plan=v3 .*binary=prefetched/);
    const scheduled = await status();
    expect(scheduled.prefetch).toEqual({ plan: "v3", state: "ready" });
    expect(scheduled.last_artifact).toMatchObject({
      plan: "v3",
      folder: "prefetch/v3",
      signature_checked: false,
    });
    node.plan = null;
    await second.waitFor(/no upgrade is scheduled any more .*plan=v3/);
    await second.waitFor(/removed the pre-fetched binary/);
    const cancelled = await status();
    expect(cancelled.next_upgrade).toBeNull();
    expect(cancelled.prefetch).toBeNull();
    second.proc.kill("SIGTERM");
    expect(await second.exit()).toBe(0);
  });
});
