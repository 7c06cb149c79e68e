#!/usr/bin/env node
// `npm run demo`: an unattended upgrade v1 -> v2 under visor, the v2 binary downloaded from a loopback server
// and verified, told as a timeline. Everything lives in a temporary folder, removed at the end.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalTestnet } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { x as extractTar } from "tar";
import { buildRelease } from "./release.js";

interface ModuleVersions {
  module_versions: { name: string; version: string }[];
}
const listVersions = (body: ModuleVersions) =>
  body.module_versions.map((m) => `${m.name}=${m.version}`).join(" ");

const started = Date.now();
const say = (what: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${what}`);
const dir = mkdtempSync(join(tmpdir(), "chaind-demo-"));
const server = await ReleaseServer.start({ dir: join(dir, "releases") });
let net: LocalTestnet | undefined;
try {
  say("building release archives of fixtures/testchain v1 and v2 (npm run release)");
  const v1 = await buildRelease({
    app: "fixtures/testchain/v1",
    version: "1.0.0",
    out: join(dir, "releases"),
    baseUrl: server.url,
  });
  const v2 = await buildRelease({
    app: "fixtures/testchain/v2",
    version: "2.0.0",
    out: join(dir, "releases"),
    baseUrl: server.url,
  });
  await extractTar({ file: v1.archive, cwd: dir });
  say(`serving them on ${server.url}; v2 sha256 ${v2.sha256.slice(0, 16)}...`);

  const important =
    /UPGRADE|upgrade detected|pre-fetch|download|verified|backed up|switched|pre-upgrade|upgrade complete|starting daemon|applying upgrade|daemon exited/;
  net = await LocalTestnet.create({
    dir: join(dir, "net"),
    genesisBinary: join(dir, "bin", "chaind"),
    blockTime: "250ms",
    votingPeriod: "5s",
    visorEnv: { DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true", VISOR_PREFETCH: "false" },
    echo: (line: string) => {
      if (important.test(line)) say(`  | ${line.replace(/^\S+ (INF|WRN|ERR|WAR) /, "")}`);
    },
  });
  say("created a single-validator testnet; visor init installed chaind v1 as the genesis binary");
  await net.start();
  say(`visor runs chaind v1; RPC ${net.rpcUrl}, REST ${net.restUrl}`);

  const height = (await net.height()) + 50;
  say(`proposing software upgrade "v2" at height ${height}, plan info ${v2.planInfo}`);
  const id = await net.proposeUpgrade({ name: "v2", height, info: v2.planInfo });
  say(`proposal ${id}: validator voted yes; voting period over; proposal PASSED`);
  const plan = await net.rest("/sdk/upgrade/v1beta1/current_plan");
  say(`current_plan: ${JSON.stringify(plan.body)}`);
  await net.waitForLine(/UPGRADE "v2" NEEDED/, 120_000);
  say(`chain halted at height ${height}; visor takes over`);
  await net.waitForLine(/applying upgrade "v2"/, 120_000);
  await net.waitForHeight(height + 1);
  say(`first blocks of v2 committed (height ${await net.height()})`);
  const applied = await net.rest("/sdk/upgrade/v1beta1/applied_plan/v2");
  say(`applied_plan/v2: ${JSON.stringify(applied.body)}`);
  const versions = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions");
  say(`module_versions: ${listVersions(versions.body)}`);
  const before = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions", {
    height: height - 1,
  });
  say(`module_versions at height ${height - 1} (x-sdk-block-height): ${listVersions(before.body)}`);
  say("done: an unattended upgrade, binary downloaded and verified, no operator step");
} catch (e) {
  say(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await net?.stop();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
