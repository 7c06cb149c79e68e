import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalTestnet } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FixtureRelease, fixtureRelease } from "./releases.js";

type ModuleVersions = { module_versions: { name: string; version: string }[] };

describe("unattended upgrades v1 -> v2 -> v3 under visor, binaries downloaded and verified", () => {
  let dir: string;
  let server: ReleaseServer;
  let net: LocalTestnet;
  const rel: Partial<Record<"v1" | "v2" | "v3", FixtureRelease>> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "e2e-upgrades-"));
    const releases = join(dir, "releases");
    server = await ReleaseServer.start({ dir: releases });
    for (const v of ["v1", "v2", "v3"] as const) rel[v] = await fixtureRelease(releases, server.url, v);
    net = await LocalTestnet.create({
      dir: join(dir, "net"),
      genesisBinary: rel.v1!.binary,
      blockTime: "200ms",
      // Eight seconds leave the validator's vote time to land on a loaded machine; each plan height then leaves
      // the proposal about twice the time it takes to pass.
      votingPeriod: "8s",
      visorEnv: { UNSAFE_SKIP_BACKUP: "true", DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true" },
    });
    await net.start();
  }, 120_000);

  afterAll(async () => {
    await net?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function upgradeTo(name: "v2" | "v3"): Promise<number> {
    const height = (await net.height()) + 100;
    net.mark();
    await net.proposeUpgrade({ name, height, info: rel[name]!.planInfo });
    const plan = await net.rest<{ plan: { name: string; height: string } }>(
      "/sdk/upgrade/v1beta1/current_plan",
    );
    expect(plan.body.plan).toMatchObject({ name, height: String(height) });
    await net.waitForLine(new RegExp(`UPGRADE "${name}" NEEDED at height: ${height}`), 60_000);
    await net.waitForLine(new RegExp(`applying upgrade "${name}" at height: ${height}`), 60_000);
    await net.waitForHeight(height + 2);
    return height;
  }

  it("applies v2 then v3 at their heights; REST answers applied plans, module versions and history", async () => {
    const v2 = await upgradeTo("v2");
    expect(server.requests.get(`chaind-2.0.0-${rel.v2!.archive.split("chaind-2.0.0-")[1]}`)).toBeGreaterThan(
      0,
    );
    const applied = await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2");
    expect(applied.body.height).toBe(String(v2));
    const none = await net.rest<{ plan: null }>("/cosmos/upgrade/v1beta1/current_plan");
    expect(none.body).toEqual({ plan: null });
    const versions = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions");
    expect(versions.body.module_versions).toContainEqual({ name: "counter", version: "1" });
    expect(versions.body.module_versions).toContainEqual({ name: "notes", version: "2" });
    const before = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions", { height: v2 - 1 });
    expect(before.body.module_versions).toContainEqual({ name: "notes", version: "1" });
    expect(before.body.module_versions.map((m) => m.name)).not.toContain("counter");
    const notYet = await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2", {
      height: v2 - 1,
    });
    expect(notYet.body.height).toBe("0");

    const v3 = await upgradeTo("v3");
    expect((await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v3")).body.height).toBe(
      String(v3),
    );
    expect((await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2")).body.height).toBe(
      String(v2),
    );
    const after = await net.rest<ModuleVersions>("/sdk/upgrade/v1beta1/module_versions");
    expect(after.body.module_versions.map((m) => m.name)).not.toContain("notes");
    const version = JSON.parse(await net.cli(["status"]));
    expect(Number(version.sync_info.latest_block_height)).toBeGreaterThan(v3);
  }, 240_000);
});
