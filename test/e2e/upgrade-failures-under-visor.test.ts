import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalTestnet, VISOR_CLI } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import { type FixtureRelease, fixtureRelease } from "./releases.js";

// The three chains are independent and mostly wait on blocks, so they run side by side. A proposal passes in
// about 12 s (10 s of voting, which the vote needs to land on a loaded machine, and two CLI runs); plan heights
// leave it twice that (120 blocks, 24 s) while three chains and another test file share two cores.
describe.concurrent("upgrades under visor when things go wrong, and ahead of time", () => {
  let dir: string;
  let server: ReleaseServer;
  const rel: Partial<Record<"v1" | "v2" | "v3", FixtureRelease>> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "e2e-failures-"));
    server = await ReleaseServer.start({ dir: join(dir, "releases") });
    for (const v of ["v1", "v2", "v3"] as const)
      rel[v] = await fixtureRelease(join(dir, "releases"), server.url, v);
    return async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }, 120_000);
  async function testnet(ctx: TestContext, name: string, visorEnv: Record<string, string> = {}) {
    const net = await LocalTestnet.create({
      dir: join(dir, name),
      genesisBinary: rel.v1!.binary,
      blockTime: "200ms",
      votingPeriod: "10s",
      visorEnv: { UNSAFE_SKIP_BACKUP: "true", ...visorEnv },
    });
    ctx.onTestFinished(() => net.stop());
    await net.start();
    return net;
  }

  it("refuses a wrong checksum and leaves v1 and the data; an operator binary added while halted then upgrades", async (ctx) => {
    const net = await testnet(ctx, "wrong-checksum", { VISOR_PREFETCH: "false" });
    // Its own server, so the pre-fetch test's request count sees only its own downloads.
    const own = await ReleaseServer.start({ dir: join(dir, "releases") });
    ctx.onTestFinished(() => own.close());
    const height = (await net.height()) + 120;
    const wrong = rel
      .v2!.planInfo.replaceAll(server.url, own.url)
      .replace(/sha256:[0-9a-f]{64}/, `sha256:${"1".repeat(64)}`);
    await net.proposeUpgrade({ name: "v2", height, info: wrong });
    expect(await net.exited(90_000)).toBe(1);
    expect(net.lines.join("\n")).toMatch(
      /Error: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/chaind-2\.0\.0/,
    );
    const cosmovisor = join(net.home, "cosmovisor");
    expect(readdirSync(join(cosmovisor, "upgrades"))).toEqual([]);
    expect(existsSync(join(net.home, "data", "upgrade-info.json"))).toBe(true);

    // The operator installs a verified binary by hand; visor, started again while the node is halted, applies it
    // before launching anything.
    const added = await execa("node", [VISOR_CLI, "add-upgrade", "v2", rel.v2!.binary], {
      env: net.visorEnv,
      reject: false,
    });
    expect(added.exitCode, added.stderr).toBe(0);
    net.mark();
    await net.start();
    await net.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 60_000, true);
    await net.waitForHeight(height + 1);
    const applied = await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2");
    expect(applied.body.height).toBe(String(height));
  }, 240_000);

  it("pre-fetches the scheduled binary before the halt, and a cancelled plan leaves nothing behind", async (ctx) => {
    const net = await testnet(ctx, "prefetch");
    const archive = rel.v2!.archive.split("/").pop()!;
    const cancelHeight = (await net.height()) + 180;
    await net.proposeUpgrade({ name: "v3", height: cancelHeight, info: rel.v3!.planInfo });
    await net.waitForLine(/pre-fetched and verified .*plan=v3/, 30_000, true);
    // Staged for the halt to check against upgrade-info.json, not installed where a binary would run.
    expect(existsSync(join(net.home, "cosmovisor", "prefetch", "v3", "artifact"))).toBe(true);
    expect(existsSync(join(net.home, "cosmovisor", "upgrades", "v3"))).toBe(false);
    await net.proposeCancel();
    expect((await net.rest<{ plan: null }>("/sdk/upgrade/v1beta1/current_plan")).body).toEqual({
      plan: null,
    });
    await net.waitForLine(/removed the pre-fetched binary of a plan no longer scheduled/, 30_000, true);
    expect(existsSync(join(net.home, "cosmovisor", "prefetch", "v3"))).toBe(false);

    const fetchedBefore = server.requests.get(archive) ?? 0;
    const height = (await net.height()) + 120;
    await net.proposeUpgrade({ name: "v2", height, info: rel.v2!.planInfo });
    await net.waitForLine(/pre-fetched and verified .*plan=v2/, 30_000, true);
    net.mark();
    await net.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 90_000);
    const afterHalt = net.lines.slice(net.lines.findIndex((l) => l.includes('UPGRADE "v2" NEEDED')));
    expect(afterHalt.some((l) => l.includes("downloading upgrade binary"))).toBe(false);
    expect(afterHalt.some((l) => /installed the pre-fetched binary .*plan=v2/.test(l))).toBe(true);
    expect(server.requests.get(archive)).toBe(fetchedBefore + 1);
    await net.waitForHeight(height + 1);
  }, 240_000);

  it("a rescheduled plan passes its old height; a height skipped with --unsafe-skip-upgrades passes too", async (ctx) => {
    const net = await testnet(ctx, "reschedule", { VISOR_PREFETCH: "false" });
    // Far enough ahead for two proposals (about 12 s each) to pass before it, with room to spare.
    const first = (await net.height()) + 180;
    await net.proposeUpgrade({ name: "v2", height: first, info: rel.v2!.planInfo });
    const second = first + 40;
    await net.proposeUpgrade({ name: "v2", height: second, info: rel.v2!.planInfo });
    const plan = await net.rest<{ plan: { height: string } }>("/sdk/upgrade/v1beta1/current_plan");
    expect(plan.body.plan.height).toBe(String(second));
    // Read from the node's log: polling with `chaind status` would start a CLI process every 200 ms meanwhile.
    await net.waitForLine(new RegExp(`committed block .*height=${first + 2} `), 90_000, true);
    expect(net.lines.some((l) => l.includes("NEEDED"))).toBe(false);

    // The operator skips the rescheduled height: the node drops the plan there and goes on under v1.
    await net.stop();
    net.mark();
    // A comma list, as Cosmos's int-slice flag takes it; visor reads the same list from the daemon's args.
    await net.start(["--unsafe-skip-upgrades", `${second + 1000},${second}`]);
    await net.waitForLine(new RegExp(`UPGRADE "v2" SKIPPED at ${second}`), 60_000);
    await net.waitForLine(new RegExp(`committed block .*height=${second + 2} `), 60_000);
    expect((await net.rest<{ plan: null }>("/sdk/upgrade/v1beta1/current_plan")).body).toEqual({
      plan: null,
    });
    expect((await net.rest<{ height: string }>("/sdk/upgrade/v1beta1/applied_plan/v2")).body.height).toBe(
      "0",
    );
    expect(existsSync(join(net.home, "cosmovisor", "upgrades", "v2"))).toBe(false);
  }, 240_000);
});
