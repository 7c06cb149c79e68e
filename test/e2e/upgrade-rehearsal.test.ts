import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@chaind/harness/free-listener-ports";
import { LocalTestnet, VISOR_CLI } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { c as createTar } from "tar";
import { beforeAll, describe, expect, it, type TestContext } from "vitest";
import { planInfoFor } from "../../scripts/release.js";
import { type FixtureRelease, fixtureRelease } from "./releases.js";

/** The fields of `visor rehearse -o json` the tests read. */
interface RehearsalReport {
  plan: { name: string; height: number };
  result: "ok" | "failed";
  failure: { step: string; reason: string; log: string[] } | null;
  steps: { step: string; ms: number | null }[];
  module_versions: { before: Record<string, string> | null; after: Record<string, string> | null };
  blocks_after_upgrade: number;
  peak_memory_bytes: number;
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** Every LevelDB table of the live node's database, by name, with its bytes' hash. */
function tables(home: string): Map<string, string> {
  const db = join(home, "data", "application.db");
  return new Map(
    readdirSync(db)
      .filter((f) => /\.(ldb|sst)$/.test(f))
      .map((f) => [f, sha256(join(db, f))]),
  );
}

/** What the live home must keep byte for byte through a rehearsal: its keys, its config, its keyring. */
function untouchable(home: string): Record<string, string> {
  const files = [
    "config/priv_validator_key.json",
    "config/node_key.json",
    "config/config.toml",
    "config/app.toml",
  ];
  const out = Object.fromEntries(files.map((f) => [f, sha256(join(home, f))]));
  for (const dir of readdirSync(home).filter((d) => d.startsWith("keyring-")))
    for (const f of readdirSync(join(home, dir))) out[`${dir}/${f}`] = sha256(join(home, dir, f));
  return out;
}

// Two validators side by side: one rehearses a good v2 and then upgrades for real, the other rehearses releases
// that would fail. Each rehearsal copies a chain that runs on, at 300 ms blocks.
describe.concurrent("visor rehearse: an upgrade run ahead on a copy of the live validator", () => {
  let dir: string;
  let server: ReleaseServer;
  const rel: Partial<Record<"v1" | "v2" | "v2-broken", FixtureRelease>> = {};

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "e2e-rehearsal-"));
    server = await ReleaseServer.start({ dir: join(dir, "releases") });
    for (const v of ["v1", "v2", "v2-broken"] as const)
      rel[v] = await fixtureRelease(join(dir, "releases"), server.url, v);
    return async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    };
  }, 180_000);

  async function validator(ctx: TestContext, name: string, env: Record<string, string> = {}) {
    const net = await LocalTestnet.create({
      dir: join(dir, name),
      genesisBinary: rel.v1!.binary,
      blockTime: "300ms",
      votingPeriod: "8s",
      // The rehearsal does the fetching here, so the test sees who downloaded what.
      visorEnv: { VISOR_PREFETCH: "false", DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true", ...env },
    });
    ctx.onTestFinished(() => net.stop());
    await net.start();
    return net;
  }

  const rehearse = (net: LocalTestnet, ...args: string[]) =>
    execa("node", [VISOR_CLI, "rehearse", "-o", "json", ...args], { env: net.visorEnv, reject: false });

  it("v1 -> v2 passes while the node signs on, leaves the live home alone, and the real upgrade installs what it verified", async (ctx) => {
    const net = await validator(ctx, "good");
    const archive = rel.v2!.archive.split("/").pop()!;
    // Far enough ahead for the proposal and the rehearsal on a loaded machine (300 ms blocks).
    const height = (await net.height()) + 400;
    await net.proposeUpgrade({ name: "v2", height, info: rel.v2!.planInfo });
    const keep = untouchable(net.home);
    const before = tables(net.home);
    const liveBefore = await net.height();

    const r = await rehearse(net);
    expect(r.exitCode, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as RehearsalReport;
    expect(report).toMatchObject({ plan: { name: "v2", height }, result: "ok", failure: null });
    expect(report.blocks_after_upgrade).toBeGreaterThanOrEqual(3);
    // The handler ran: notes went to version 2 and counter was added.
    expect(report.module_versions.before).toMatchObject({ notes: "1" });
    expect(report.module_versions.before).not.toHaveProperty("counter");
    expect(report.module_versions.after).toMatchObject({ notes: "2", counter: "1" });
    const step = (name: string) => report.steps.find((s) => s.step === name);
    for (const s of ["download", "verify", "copy", "run_to_halt", "switch", "handler", "first_block"])
      expect(step(s)?.ms, s).toBeTypeOf("number");
    expect(report.peak_memory_bytes).toBeGreaterThan(10 * 1024 * 1024);

    // The live node committed blocks all along and is still before the plan.
    const liveAfter = await net.height();
    expect(liveAfter).toBeGreaterThan(liveBefore);
    expect(liveAfter).toBeLessThan(height);
    // Nothing of the live home was written by the rehearsal: its keys and config, and every table it had that
    // LevelDB still keeps (a table is never rewritten, so a changed one was written through a shared link).
    expect(untouchable(net.home)).toEqual(keep);
    for (const [name, hash] of tables(net.home))
      if (before.has(name)) expect(hash, name).toBe(before.get(name));
    const rehearsalDir = join(net.home, "cosmovisor", "rehearsal");
    expect(readdirSync(rehearsalDir).sort()).toEqual(["last.json", "lock", "v2.log"]);
    expect(existsSync(join(net.home, "cosmovisor", "prefetch", "v2", "artifact"))).toBe(true);
    const status = await execa("node", [VISOR_CLI, "status", "-o", "json"], { env: net.visorEnv });
    expect(JSON.parse(status.stdout).last_rehearsal).toMatchObject({ plan: "v2", result: "ok" });

    // The real halt installs the artifact the rehearsal verified: no second download (the live visor's
    // readiness check may have read the artifact's first bytes once, before the rehearsal).
    const fetched = server.requests.get(archive) ?? 0;
    expect(fetched).toBeGreaterThanOrEqual(1);
    net.mark();
    await net.waitForLine(new RegExp(`applying upgrade "v2" at height: ${height}`), 240_000);
    expect(net.lines.some((l) => /installed the pre-fetched binary .*plan=v2/.test(l))).toBe(true);
    expect(server.requests.get(archive)).toBe(fetched);
    await net.waitForHeight(height + 1);
  }, 400_000);

  it("a failing handler (found by visor on its schedule), a binary without the handler, one that cannot start and a wrong checksum each fail the rehearsal with the reason, and the node runs on", async (ctx) => {
    const events = join(dir, "bad-events.jsonl");
    const metricsPort = await freePort();
    const net = await validator(ctx, "bad", {
      VISOR_REHEARSE_BEFORE: "24h",
      VISOR_NOTIFY_CMD: `tee -a ${events}`,
      VISOR_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
    });
    const height = (await net.height()) + 1000;
    net.mark();
    await net.proposeUpgrade({ name: "v2", height, info: rel["v2-broken"]!.planInfo });

    // About 5 minutes ahead, well within the day VISOR_REHEARSE_BEFORE gives: visor rehearses at once.
    await net.waitForLine(/rehearsing the next upgrade on a copy of the home .*plan=v2/, 120_000, true);
    await net.waitForLine(
      new RegExp(
        `upgrade v2 at height ${height} will fail: its rehearsal failed at handler: .*notes migration: a stored note has no author`,
      ),
      180_000,
      true,
    );
    const text = await execa("node", [VISOR_CLI, "status"], { env: net.visorEnv });
    expect(text.stdout).toMatch(/last rehearsal: +v2: FAILED at handler/);
    // The copy's own visor, which sees the copy's plan due, never rehearses the copy in turn.
    const copyLog = readFileSync(join(net.home, "cosmovisor", "rehearsal", "v2.log"), "utf8");
    expect(copyLog).toContain("starting daemon");
    expect(copyLog).not.toContain("rehearsing the next upgrade");
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(/^visor_rehearsal_passed\{plan="v2"\} 0$/m);
    const rehearsed = readFileSync(events, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((e) => e.event === "rehearsed");
    expect(rehearsed).toMatchObject({
      upgrade: "v2",
      height,
      details: { result: "failed", failed_step: "handler" },
    });

    const broken = await rehearse(net);
    expect(broken.exitCode, broken.stderr).toBe(1);
    expect(broken.stderr).toMatch(/^Error: rehearsal of upgrade "v2" failed at handler: /);
    const report = JSON.parse(broken.stdout) as RehearsalReport;
    expect(report.result).toBe("failed");
    expect(report.failure?.log.join("\n")).toContain("notes migration: a stored note has no author");

    // A release built without the plan's handler: the new binary halts again at the height instead of going on.
    await net.proposeUpgrade({ name: "v2", height, info: rel.v1!.planInfo });
    const noHandler = await rehearse(net);
    expect(noHandler.exitCode, noHandler.stderr).toBe(1);
    expect((JSON.parse(noHandler.stdout) as RehearsalReport).failure?.log.join("\n")).toMatch(
      /UPGRADE "v2" NEEDED/,
    );

    // A release whose binary cannot start on this machine (a library it links against is missing).
    const dead = join(dir, "dead");
    mkdirSync(join(dead, "bin"), { recursive: true });
    writeFileSync(
      join(dead, "bin", "chaind"),
      "#!/bin/sh\necho 'chaind: error while loading shared libraries: libwasmvm.so: cannot open shared object file' >&2\nexit 127\n",
      { mode: 0o755 },
    );
    await createTar({ gzip: true, file: join(dir, "releases", "chaind-dead.tar.gz"), cwd: dead }, ["bin"]);
    const deadInfo = planInfoFor(
      server.url,
      "chaind-dead.tar.gz",
      sha256(join(dir, "releases", "chaind-dead.tar.gz")),
    );
    await net.proposeUpgrade({ name: "v2", height, info: deadInfo });
    const noStart = await rehearse(net);
    expect(noStart.exitCode, noStart.stderr).toBe(1);
    // Found at its first run, the halt's `pre-upgrade`.
    expect(noStart.stderr).toMatch(
      /failed at pre_upgrade: .*\(exit status 127\): chaind: error while loading shared libraries: libwasmvm\.so/,
    );

    // From a server of its own: the other test counts the downloads of the v2 archive.
    const own = await ReleaseServer.start({ dir: join(dir, "releases") });
    ctx.onTestFinished(() => own.close());
    const wrong = rel
      .v2!.planInfo.replaceAll(server.url, own.url)
      .replace(/sha256:[0-9a-f]{64}/, `sha256:${"1".repeat(64)}`);
    await net.proposeUpgrade({ name: "v2", height, info: wrong });
    const mismatch = await rehearse(net);
    expect(mismatch.exitCode).toBe(1);
    expect(mismatch.stderr).toMatch(/failed at verify: .*checksum mismatch/);

    // The live node went on through all three, and no copy is left behind.
    expect(await net.height()).toBeLessThan(height);
    const before = await net.height();
    await net.waitForHeight(before + 3);
    expect(
      readdirSync(join(net.home, "cosmovisor", "rehearsal")).filter((f) => !/\.(log|json)$|^lock$/.test(f)),
    ).toEqual([]);
  }, 400_000);
});
