#!/usr/bin/env node
// `npm run demo`: an unattended upgrade v1 -> v2 under visor, the v2 binary downloaded from a loopback server
// and verified, told as a timeline. `npm run demo -- --validators 4`: the same on a network of validators on
// CometBFT, each under its own visor. Everything lives in a temporary folder, removed at the end.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { LocalNetwork } from "@chaind/harness/local-network";
import { LocalTestnet } from "@chaind/harness/local-testnet";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { ReleaseServer } from "@chaind/harness/release-server";
import { x as extractTar } from "tar";
import { buildRelease } from "./release.js";

interface ModuleVersions {
  module_versions: { name: string; version: string }[];
}
const listVersions = (body: ModuleVersions) =>
  body.module_versions.map((m) => `${m.name}=${m.version}`).join(" ");

const { values } = parseArgs({ options: { validators: { type: "string", default: "1" } } });
const validators = Number(values.validators);
if (!Number.isInteger(validators) || validators < 1 || validators > 10) {
  console.error(`--validators must be a whole number from 1 to 10, got ${values.validators}`);
  process.exit(2);
}
const cometbft = referenceBinary("cometbft");
if (validators > 1 && "missing" in cometbft) {
  console.error(`a network needs CometBFT: ${cometbft.missing}`);
  process.exit(1);
}
/** Lines of visor and the node worth a line of the timeline. */
const important =
  /UPGRADE|upgrade detected|pre-fetch|download|verified|backed up|switched|pre-upgrade|upgrade complete|starting daemon|applying upgrade|daemon exited/;

const started = Date.now();
const say = (what: string) =>
  console.log(`[${((Date.now() - started) / 1000).toFixed(1).padStart(5)}s] ${what}`);
const dir = mkdtempSync(join(tmpdir(), "chaind-demo-"));
const server = await ReleaseServer.start({ dir: join(dir, "releases") });
let testnet: LocalTestnet | undefined;
let network: LocalNetwork | undefined;
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
  const v1Binary = join(dir, "bin", "chaind");
  say(`serving them on ${server.url}; v2 sha256 ${v2.sha256.slice(0, 16)}...`);

  if (validators === 1) await demoOneValidator(v1Binary, v2.planInfo);
  else await demoNetwork(v1Binary, v2.planInfo);
} catch (e) {
  say(`demo failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  await testnet?.stop();
  await network?.stop();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}

async function demoOneValidator(v1Binary: string, planInfo: string): Promise<void> {
  testnet = await LocalTestnet.create({
    dir: join(dir, "testnet"),
    genesisBinary: v1Binary,
    blockTime: "250ms",
    votingPeriod: "5s",
    visorEnv: { DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true", VISOR_PREFETCH: "false" },
    echo: (line: string) => {
      if (important.test(line)) say(`  | ${line.replace(/^\S+ (INF|WRN|ERR|WAR) /, "")}`);
    },
  });
  say("created a single-validator testnet; visor init installed chaind v1 as the genesis binary");
  await testnet.start();
  say(`visor runs chaind v1; RPC ${testnet.rpcUrl}, REST ${testnet.restUrl}`);

  const height = (await testnet.height()) + 50;
  say(`proposing software upgrade "v2" at height ${height}, plan info ${planInfo}`);
  const id = await testnet.proposeUpgrade({ name: "v2", height, info: planInfo });
  say(`proposal ${id}: validator voted yes; voting period over; proposal PASSED`);
  const plan = await testnet.rest("/sdk/upgrade/v1beta1/current_plan");
  say(`current_plan: ${JSON.stringify(plan.body)}`);
  await testnet.waitForLine(/UPGRADE "v2" NEEDED/, 120_000);
  say(`chain halted at height ${height}; visor takes over`);
  await testnet.waitForLine(/applying upgrade "v2"/, 120_000);
  await testnet.waitForHeight(height + 1);
  say(`first blocks of v2 committed (height ${await testnet.height()})`);
  const applied = await testnet.rest("/sdk/upgrade/v1beta1/applied_plan/v2");
  say(`applied_plan/v2: ${JSON.stringify(applied.body)}`);
  const versions = await testnet.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions");
  say(`module_versions: ${listVersions(versions.body)}`);
  const before = await testnet.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions", {
    height: height - 1,
  });
  say(`module_versions at height ${height - 1} (x-sdk-block-height): ${listVersions(before.body)}`);
  say("done: an unattended upgrade, binary downloaded and verified, no operator step");
}

async function demoNetwork(v1Binary: string, planInfo: string): Promise<void> {
  network = await LocalNetwork.create({
    dir: join(dir, "net"),
    validators,
    genesisBinary: v1Binary,
    cometbft: (cometbft as { path: string }).path,
    blockTime: "500ms",
    votingPeriod: "10s",
    visorEnv: { DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" },
    echo: (node, line) => {
      if (important.test(line)) say(`  ${node} | ${line.replace(/^\S+ (INF|WRN|ERR|WAR) /, "")}`);
    },
  });
  const net = network;
  say(
    `created ${validators} validator homes (chaind testnet --validators ${validators}); each visor installed v1`,
  );
  await net.start();
  for (const [i, n] of net.nodes.entries())
    say(`${net.names[i]}: visor runs chaind v1 and CometBFT; RPC ${n.rpcUrl}`);
  await net.waitForHeight(3);
  const height = await net.heightIn(40);
  say(`proposing software upgrade "v2" at height ${height} from node0, plan info ${planInfo}`);
  const id = await net.proposeUpgrade({ name: "v2", height, info: planInfo });
  say(`proposal ${id}: all ${validators} validators voted yes; voting period over; proposal PASSED`);
  await Promise.all(
    net.nodes.map(async (n, i) => {
      await n.waitForLine(/UPGRADE "v2" NEEDED/, 180_000);
      say(`${net.names[i]} halted at height ${height}; its visor takes over`);
      await n.waitForLine(/applying upgrade "v2"/, 180_000);
      say(`${net.names[i]} runs v2: its handler ran at height ${height}`);
    }),
  );
  await net.waitForHeight(height + 2);
  const hashes = await net.blockHashes(height + 1);
  say(
    `block ${height + 1}, made by the network on v2, has one hash on every node: ${new Set(hashes).size === 1 ? hashes[0] : hashes.join(" ")}`,
  );
  for (const [i, n] of net.nodes.entries()) {
    const applied = await n.rest("/sdk/upgrade/v1beta1/applied_plan/v2");
    say(`${net.names[i]} applied_plan/v2: ${JSON.stringify(applied.body)}`);
  }
  say(
    `done: ${validators} validators upgraded together, each binary downloaded and verified by its own visor`,
  );
}
