import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ReleaseServer } from "@chaind/harness/release-server";
import { ed25519 } from "@noble/curves/ed25519.js";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signatureMessage } from "../../supervisor/src/artifacts/artifact-signature.js";
import { FakeNodeApi } from "./fake-node-api.js";
import { fakeBinary, sha256File, VISOR, visorHome } from "./visor-home.js";

describe("visor and the node's API: batch upgrades, prepare-upgrade, pre-fetch, signatures, status", () => {
  let h: ReturnType<typeof visorHome>;
  let files: string;
  let releases: ReleaseServer;
  // The fake daemon has no API: this plays the home's node, claiming the home's own identity.
  let rpc: FakeNodeApi;

  beforeEach(async () => {
    h = visorHome();
    files = join(h.root, "served");
    mkdirSync(files);
    releases = await ReleaseServer.start({ dir: files });
    rpc = await FakeNodeApi.start({ home: h.home, identity: h.identity });
    h.env.VISOR_RPC_ADDRESS = rpc.url;
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    copyFileSync(fakeBinary(h.root, "v2"), join(files, "fake-v2"));
  });
  afterEach(async () => {
    await rpc.close();
    await releases.close();
    h.cleanup();
  });

  const v2Url = () => `${releases.fileUrl("fake-v2")}?checksum=sha256:${sha256File(join(files, "fake-v2"))}`;

  it("detects upgrade-info.json by file event even when polling is an hour apart", async () => {
    const v2 = fakeBinary(h.root, "v2");
    await h.visor(["add-upgrade", "v2", v2]);
    const v = h.start(["start"], { DAEMON_POLL_INTERVAL: "1h", UNSAFE_SKIP_BACKUP: "true" });
    await v.waitFor(/v1 height 2/);
    writeFileSync(
      join(h.home, "data", "upgrade-info.json"),
      JSON.stringify({ name: "v2", height: 3, info: "" }),
    );
    await v.waitFor(/v2 running/, 10_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("detects upgrade-info.json by polling alone when file events are off (VISOR_WATCH_EVENTS=false)", async () => {
    const v2 = fakeBinary(h.root, "v2");
    await h.visor(["add-upgrade", "v2", v2]);
    const v = h.start(["start"], {
      VISOR_WATCH_EVENTS: "false",
      DAEMON_POLL_INTERVAL: "100ms",
      UNSAFE_SKIP_BACKUP: "true",
    });
    await v.waitFor(/v1 height 2/);
    writeFileSync(
      join(h.home, "data", "upgrade-info.json"),
      JSON.stringify({ name: "v2", height: 3, info: "" }),
    );
    await v.waitFor(/v2 running/, 10_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it("feeds batch upgrades one by one as the node's height reaches them", async () => {
    const v2 = fakeBinary(h.root, "v2");
    const v3 = fakeBinary(h.root, "v3");
    const added = await h.visor(["add-batch-upgrade", "--upgrade-list", `v2:${v2}:6,v3:${v3}:12`]);
    expect(added.exitCode, added.all).toBe(0);
    expect(
      JSON.parse(readFileSync(join(h.home, "data", "upgrade-info.json.batch"), "utf8")).map(
        (p: { name: string }) => p.name,
      ),
    ).toEqual(["v2", "v3"]);
    // The home's own height (CometBFT's block store, here in Tendermint's JSON form) confirms each entry.
    const v = h.start(["start"], {
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_BLOCK_MS: "200",
      FAKE_BLOCKSTORE: "json",
    });
    await v.waitFor(/v2 running/, 15_000);
    await v.waitFor(/v3 running/, 15_000);
    expect(existsSync(join(h.home, "data", "upgrade-info.json.batch"))).toBe(false);
    v.proc.kill("SIGTERM");
    await v.exit();
    const heightAtV2 = Number(v.output.match(/v2 running from height (\d+)/)![1]);
    expect(heightAtV2).toBeGreaterThanOrEqual(5);
    expect(heightAtV2).toBeLessThan(12);
  });

  it("prepare-upgrade downloads the scheduled plan's artifact now (staged for the halt), and says so when there is none", async () => {
    const none = await h.visor(["prepare-upgrade"]);
    expect(none.stdout.trim()).toBe("No active upgrade plan found");
    rpc.plan = { name: "v2", height: 100, info: JSON.stringify({ binaries: { any: v2Url() } }) };
    const ready = await h.visor(["prepare-upgrade"]);
    expect(ready.exitCode, ready.all).toBe(0);
    const staged = join(h.home, "cosmovisor", "prefetch", "v2", "artifact");
    expect(sha256File(staged)).toBe(sha256File(join(files, "fake-v2")));
    expect(existsSync(join(h.home, "cosmovisor", "upgrades", "v2"))).toBe(false);
    // Asked again: nothing to download.
    const again = await h.visor(["prepare-upgrade"]);
    expect(again.stdout.trim()).toBe(
      `upgrade v2 at height 100: artifact verified and staged at ${staged}; installed at the halt if upgrade-info.json names it`,
    );
    expect(releases.requests.get("fake-v2")).toBe(1);
  });

  it("prepare-upgrade draws a progress bar on a terminal, and writes log lines otherwise", async () => {
    rpc.plan = { name: "v2", height: 100, info: JSON.stringify({ binaries: { any: v2Url() } }) };
    // `script` gives visor a real pseudo-terminal, as an operator's shell would.
    const tty = await execa("script", ["-qfec", `node ${VISOR} prepare-upgrade`, "/dev/null"], {
      env: h.env,
      reject: false,
    });
    expect(tty.exitCode, tty.stdout).toBe(0);
    expect(tty.stdout).toContain(`\r\u001b[2Kdownloading [${"#".repeat(30)}] 100%`);
    expect(tty.stdout).toMatch(/100% {2}\d+\.\d\/\d+\.\d MB {2}\d+\.\d MB\/s/);
    expect(tty.stdout).not.toMatch(/downloading bytes=/);

    rmSync(join(h.home, "cosmovisor", "prefetch", "v2"), { recursive: true });
    const piped = await h.visor(["prepare-upgrade"]);
    expect(piped.exitCode, piped.all).toBe(0);
    expect(piped.all).toMatch(/downloading .*bytes=\d+/);
    expect(piped.all).not.toContain("\r");
  });

  it("pre-fetches while the daemon runs, so the halt downloads nothing; status shows it", async () => {
    rpc.plan = { name: "v2", height: 8, info: JSON.stringify({ binaries: { any: v2Url() } }) };
    const v = h.start(["start"], {
      VISOR_PREFETCH: "true",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_HALTS: "v1:8:v2",
      FAKE_INFO: rpc.plan.info,
      FAKE_BLOCK_MS: "200",
    });
    await v.waitFor(/pre-fetched and verified/, 15_000);
    const status = JSON.parse((await h.visor(["status", "-o", "json"])).stdout);
    expect(status.prefetch).toMatchObject({ plan: "v2", state: "ready" });
    await v.waitFor(/v2 running/, 15_000);
    expect(releases.requests.get("fake-v2")).toBe(1);
    v.proc.kill("SIGTERM");
    await v.exit();
    const after = JSON.parse((await h.visor(["status", "-o", "json"])).stdout);
    expect(after.last_upgrade).toMatchObject({ plan: "v2", result: "ok" });
    expect(after.current).toMatch(/upgrades\/v2$/);
  });

  it("with VISOR_TRUSTED_KEYS, accepts only artifacts signed by a trusted key", async () => {
    const good = ed25519.utils.randomSecretKey();
    const other = ed25519.utils.randomSecretKey();
    const signed = signatureMessage({
      plan: "v2",
      platform: "any",
      sha256: sha256File(join(files, "fake-v2")),
    });
    writeFileSync(join(files, "fake-v2.sig"), Buffer.from(ed25519.sign(signed, other)).toString("base64"));
    const info = JSON.stringify({ binaries: { any: v2Url() } });
    const env = {
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      FAKE_HALTS: "v1:4:v2",
      FAKE_INFO: info,
      VISOR_TRUSTED_KEYS: Buffer.from(ed25519.getPublicKey(good)).toString("hex"),
    };
    const refused = h.start(["start"], env);
    expect(await refused.exit()).toBe(1);
    expect(refused.output).toMatch(/Error: no trusted key signed http:\/\/127\.0\.0\.1:\d+\/fake-v2/);
    writeFileSync(join(files, "fake-v2.sig"), Buffer.from(ed25519.sign(signed, good)).toString("base64"));
    const accepted = h.start(["start"], env);
    await accepted.waitFor(/v2 running/);
    accepted.proc.kill("SIGTERM");
    await accepted.exit();
  });
});
