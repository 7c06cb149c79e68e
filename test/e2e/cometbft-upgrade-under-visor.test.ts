import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalTestnet, VISOR_CLI } from "@chaind/harness/local-testnet";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureRelease, fixtureRelease } from "./releases.js";

type ModuleVersions = { module_versions: { name: string; version: string }[] };

const cometbft = referenceBinary("cometbft");
if ("missing" in cometbft) console.log(`skipping the CometBFT upgrade test: ${cometbft.missing}`);

/**
 * The upgrade module's contract under the real CometBFT: at the plan height chaind refuses to finalize the block
 * (CometBFT has stored it), writes upgrade-info.json and exits; visor installs v2 from the release server; v2's
 * start replays that block through CometBFT's handshake and runs its handler there.
 */
describe.skipIf("missing" in cometbft)("an upgrade v1 -> v2 under visor, CometBFT making the blocks", () => {
  let dir: string;
  let server: ReleaseServer;
  let net: LocalTestnet;
  const rel: Partial<Record<"v1" | "v2", FixtureRelease>> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "e2e-comet-upgrade-"));
    const releases = join(dir, "releases");
    server = await ReleaseServer.start({ dir: releases });
    for (const v of ["v1", "v2"] as const) rel[v] = await fixtureRelease(releases, server.url, v);
    net = await LocalTestnet.create({
      dir: join(dir, "net"),
      genesisBinary: rel.v1!.binary,
      blockTime: "200ms",
      votingPeriod: "8s",
      cometbft: (cometbft as { path: string }).path,
      visorEnv: { UNSAFE_SKIP_BACKUP: "true", DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" },
    });
    await net.start();
    await net.waitForHeight(2);
  }, 180_000);

  afterAll(async () => {
    await net?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("rehearses v2 on a copy of the CometBFT validator's home, then halts at the plan height with the block stored, switches to v2, which runs the block with its handler", async () => {
    // Room for the proposal and a rehearsal on a loaded machine (200 ms blocks).
    const height = (await net.height()) + 200;
    net.mark();
    await net.proposeUpgrade({ name: "v2", height, info: rel.v2!.planInfo });
    // The copy holds CometBFT's block store and state as the node had them, goes on under the embedded engine,
    // and its v2 runs the handler on this chain's state.
    const rehearsal = await execa("node", [VISOR_CLI, "rehearse", "-o", "json"], {
      env: net.visorEnv,
      reject: false,
    });
    expect(rehearsal.exitCode, rehearsal.stderr).toBe(0);
    const report = JSON.parse(rehearsal.stdout);
    expect(report).toMatchObject({ result: "ok", module_versions: { after: { notes: "2", counter: "1" } } });
    expect(await net.height()).toBeLessThan(height);
    await net.waitForLine(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`), 90_000);
    const info = join(net.home, "data", "upgrade-info.json");
    expect(existsSync(info)).toBe(true);
    expect(JSON.parse(readFileSync(info, "utf8"))).toMatchObject({ name: "v2", height });
    // v2 starts CometBFT again, whose handshake hands it the stored block.
    await net.waitForLine(/ABCI Replay Blocks .*appHeight=\d+ storeHeight=\d+/, 90_000);
    await net.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 90_000);
    await net.waitForHeight(height + 3);
    expect([...server.requests.keys()].some((k) => k.startsWith("chaind-2.0.0-"))).toBe(true);

    const applied = await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2");
    expect(applied.body.height).toBe(String(height));
    const versions = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions");
    expect(versions.body.module_versions).toContainEqual({ name: "counter", version: "1" });
    expect(versions.body.module_versions).toContainEqual({ name: "notes", version: "2" });
    const before = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions", {
      height: height - 1,
    });
    expect(before.body.module_versions).toContainEqual({ name: "notes", version: "1" });
    // The same block H: CometBFT's replay found the block stored before the halt, at that height.
    const replay = net.lines.find((l) => /ABCI Replay Blocks/.test(l) && l.includes(`storeHeight=${height}`));
    expect(replay, "CometBFT stored block H before the halt").toBeDefined();
  }, 240_000);

  it("a plan whose height the operator skips (--unsafe-skip-upgrades) is passed through, the block run by the same binary", async () => {
    const height = (await net.height()) + 60;
    await net.proposeUpgrade({ name: "v3", height, info: rel.v2!.planInfo });
    // The operator restarts the node with the flag before the height, as the SDK's docs ask.
    await net.stop();
    net.mark();
    const from = net.lines.length;
    await net.start(["--unsafe-skip-upgrades", String(height)]);
    await net.waitForLine(new RegExp(`UPGRADE "v3" SKIPPED at ${height}`), 90_000);
    await net.waitForHeight(height + 3);
    const since = net.lines.slice(from);
    expect(since.some((l) => l.includes('UPGRADE "v3" NEEDED'))).toBe(false);
    expect(since.some((l) => /CONSENSUS FAILURE/.test(l))).toBe(false);
    expect((await net.rest<{ plan: unknown }>("/sdk/upgrade/v1beta1/current_plan")).body.plan).toBeNull();
    expect((await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v3")).body.height).toBe(
      "0",
    );
    // upgrade-info.json still names the last upgrade that was applied.
    expect(JSON.parse(readFileSync(join(net.home, "data", "upgrade-info.json"), "utf8"))).toMatchObject({
      name: "v2",
    });
  }, 240_000);
});
