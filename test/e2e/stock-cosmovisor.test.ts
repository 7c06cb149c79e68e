import { mkdtempSync, readlinkSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalTestnet } from "@chaind/harness/local-testnet";
import { referenceBinary } from "@chaind/harness/reference-binaries";
import { ReleaseServer } from "@chaind/harness/release-server";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type FixtureRelease, fixtureRelease } from "./releases.js";

const cosmovisor = referenceBinary("cosmovisor-1.5");
const cometbft = referenceBinary("cometbft");
for (const b of [cosmovisor, cometbft])
  if ("missing" in b) console.log(`skipping the stock cosmovisor tests: ${b.missing}`);

/**
 * chaind under the real cosmovisor, not visor: cosmovisor's contract (DAEMON_* settings, cosmovisor/ folders,
 * upgrade-info.json, Plan.info with a checksum, download and switch) met by chaind's releases with either engine.
 */
describe.skipIf("missing" in cosmovisor || "missing" in cometbft)("chaind under stock cosmovisor", () => {
  let dir: string;
  let server: ReleaseServer;
  let net: LocalTestnet | undefined;
  const rel: Partial<Record<"v1" | "v2", FixtureRelease>> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "e2e-cosmovisor-"));
    const releases = join(dir, "releases");
    server = await ReleaseServer.start({ dir: releases });
    for (const v of ["v1", "v2"] as const) rel[v] = await fixtureRelease(releases, server.url, v);
  }, 180_000);
  afterEach(async () => {
    await net?.stop();
    net = undefined;
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const engine of ["embedded", "cometbft"] as const)
    it(`upgrades v1 -> v2 unattended, the ${engine} engine making the blocks`, async () => {
      net = await LocalTestnet.create({
        dir: join(dir, engine),
        genesisBinary: rel.v1!.binary,
        blockTime: "200ms",
        votingPeriod: "8s",
        cosmovisor: (cosmovisor as { path: string }).path,
        ...(engine === "cometbft" ? { cometbft: (cometbft as { path: string }).path } : {}),
        visorEnv: { UNSAFE_SKIP_BACKUP: "true" },
      });
      await net.start();
      // `cosmovisor init` copies the binary alone, without the Swagger UI files a release keeps beside it: the
      // node starts all the same, and serves the OpenAPI document.
      await net.waitForLine(
        /Swagger UI files not found: \/swagger serves the OpenAPI document only/,
        5_000,
        true,
      );
      expect((await fetch(`${net.restUrl}/swagger/openapi.json`)).status).toBe(200);
      expect((await fetch(`${net.restUrl}/swagger/`)).status).toBe(503);
      await net.waitForHeight(2);
      const height = (await net.height()) + 60;
      net.mark();
      await net.proposeUpgrade({ name: "v2", height, info: rel.v2!.planInfo });
      await net.waitForLine(new RegExp(`UPGRADE "v2" NEEDED at height: ${height}`), 90_000);
      // chaind stays up after the halt, as an SDK node does, so cosmovisor's poller (not its racy exit path)
      // finds the plan and stops it.
      await net.waitForLine(/upgrade halt: waiting for the supervisor to stop this process/);
      await net.waitForLine(/daemon shutting down in an attempt to restart/);
      await net.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 60_000);
      await net.waitForHeight(height + 3);
      // cosmovisor fetched the archive from the release server and switched `current` to it.
      expect([...server.requests.keys()].some((k) => k.startsWith("chaind-2.0.0-"))).toBe(true);
      expect(readlinkSync(join(net.home, "cosmovisor", "current"))).toMatch(/upgrades\/v2$/);
      const applied = await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2");
      expect(applied.body.height).toBe(String(height));
    }, 300_000);
});
