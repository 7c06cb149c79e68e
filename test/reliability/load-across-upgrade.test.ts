import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CHAIND_CLI, LocalTestnet } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { fixtureRelease } from "../e2e/releases.js";
import { testAccount } from "../node/helpers/test-home.js";
import { QueryLoad } from "./query-load.js";
import { SendLoad } from "./send-load.js";
import { reportSoakFigures } from "./soak-report.js";
import { isSoak, soakSize } from "./soak-size.js";

const LOAD_SECONDS = soakSize("load_seconds", 3);
const senders = ["load-1", "load-2"].map((n) => testAccount(n));
const sink = testAccount("load-sink");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resident memory of a process, from /proc, in bytes. */
function rss(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Number(m![1]) * 1024;
}

describe("queries and sends under load, while blocks commit and across an upgrade under visor", () => {
  const dir = mkdtempSync(join(tmpdir(), "load-upgrade-"));
  let server: ReleaseServer | undefined;
  let net: LocalTestnet | undefined;
  afterAll(async () => {
    await net?.stop();
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it(`fails nothing outside the halt window, measures it, and the node does not grow once the load stops (${LOAD_SECONDS}s of load first)`, {
    timeout: 240_000 + LOAD_SECONDS * 1000,
  }, async () => {
    server = await ReleaseServer.start({ dir: join(dir, "releases") });
    const v1 = await fixtureRelease(join(dir, "releases"), server.url, "v1");
    const v2 = await fixtureRelease(join(dir, "releases"), server.url, "v2");
    net = await LocalTestnet.create({
      dir: join(dir, "net"),
      genesisBinary: v1.binary,
      blockTime: "200ms",
      // Long enough that the vote lands in time on a busy machine.
      votingPeriod: "10s",
      visorEnv: { UNSAFE_SKIP_BACKUP: "true" },
    });
    for (const s of senders) {
      const r = await execa(
        "node",
        [CHAIND_CLI, "genesis", "add-genesis-account", s.address, "1000000000stake", "--home", net.home],
        { reject: false },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    }
    await net.start();
    // Before the first block a query is answered 503 "no block yet": the load starts on a running chain.
    await net.waitForHeight(2);
    const at = { rest: net.restUrl, grpc: net.listeners.get("grpc")!, rpc: net.rpcUrl };
    // The fast form leaves the other test worker some CPU; the soak runs the loops flat out.
    const queries = new QueryLoad(at, sink.address, { loopsPerKind: 2, pauseMs: isSoak ? 0 : 5 });
    const sends = new SendLoad(at.rpc, net.chainId, senders, sink.address);
    queries.start();
    sends.start();
    const started = performance.now();

    await sleep(LOAD_SECONDS * 1000);
    const planHeight = (await net.height()) + 90;
    await net.proposeUpgrade({ name: "v2", height: planHeight, info: v2.planInfo });
    net.mark();
    await net.waitForLine(new RegExp(`UPGRADE "v2" NEEDED at height: ${planHeight}`), 60_000);
    const halted = performance.now();
    await net.waitForLine(new RegExp(`committed block .*height=${planHeight} `), 60_000);
    const resumed = performance.now();
    await sleep(3000);
    await Promise.all([queries.stop(), sends.stop()]);
    const stopped = performance.now();

    // Failures may only fall between the halt (less the time its log line takes to reach us) and v2's first
    // block, plus the gRPC client's reconnect backoff (at most 500 ms, as QueryLoad sets it).
    const from = halted - 500;
    const until = resumed + 1000;
    const outside = [
      ...queries.outcomes.filter((o) => !o.ok).map((o) => ({ at: o.at, why: `${o.kind}: ${o.why}` })),
      ...sends.failures,
    ].filter((f) => f.at < from || f.at > until);
    expect(
      outside.map((f) => ({
        ...f,
        at: `halt${f.at < from ? "-" : "+"}${Math.round(Math.abs(f.at - halted))}ms`,
        resumedAfterHaltMs: Math.round(resumed - halted),
      })),
    ).toEqual([]);
    const oks = queries.outcomes.filter((o) => o.ok);
    expect(oks.filter((o) => o.at < from).length).toBeGreaterThan(50);
    expect(sends.included.some((t) => t.height < planHeight)).toBe(true);
    for (const kind of ["rest", "grpc", "rpc"])
      expect(oks.filter((o) => o.kind === kind && o.at > until).length, kind).toBeGreaterThan(5);
    expect(sends.included.some((t) => t.height > planHeight)).toBe(true);
    // The halt window: the longest time around the halt in which no query at all succeeded.
    const times = oks
      .map((o) => o.at)
      .filter((t) => t >= from - 1000)
      .sort((a, b) => a - b);
    const haltWindow = Math.max(...times.slice(1).map((t, i) => t - times[i]));

    // Memory once the load has stopped: sampled for 3 s, it must not climb.
    const pid = JSON.parse(readFileSync(join(net.home, "cosmovisor", "visor-status.json"), "utf8")).child_pid;
    const atStop = rss(pid);
    const samples: number[] = [];
    for (let i = 0; i < 12; i++) {
      await sleep(250);
      samples.push(rss(pid));
    }
    expect(Math.max(...samples.slice(-4))).toBeLessThanOrEqual(atStop * 1.1 + 8 * 1024 * 1024);

    reportSoakFigures("load", {
      load_seconds: Math.round((stopped - started) / 1000),
      queries_ok: oks.length,
      queries_failed_in_halt_window: queries.outcomes.length - oks.length,
      sends_included: sends.included.length,
      sends_failed_in_halt_window: sends.failures.length,
      failures_outside_window: outside.length,
      halt_window_ms: Math.round(haltWindow),
      halt_to_first_v2_block_ms: Math.round(resumed - halted),
      rss_at_stop_mib: Math.round(atStop / 2 ** 20),
      rss_3s_later_mib: Math.round(samples[samples.length - 1] / 2 ** 20),
    });
  });
});
