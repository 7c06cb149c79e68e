import { mkdirSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LocalTestnet, VISOR_CLI } from "@chaind/harness/local-testnet";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { x as extractTar } from "tar";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { buildFixtureRelease } from "./fixture-releases.js";
import { stopVisorAndSweep } from "./leftover-processes.js";
import { median, percentile } from "./median-ratio.js";
import { scratchDir } from "./scratch-dir.js";

/** Section 5's block time, so the downtime here reads beside its figures. */
const BLOCK_TIME_MS = 300;
/** Block intervals sampled before the rehearsals and as many after them (quick: fewer). */
const QUIET_BLOCKS = { full: 60, quick: 20 };
/** Rehearsals run back to back (full; quick runs one). */
const REHEARSALS_FULL = 3;
/** Far enough ahead that the rehearsals end well before it: the real plan height is set afterwards. */
const FAR_AHEAD = 100_000;

/** The fields of `visor rehearse -o json` the section reads. */
interface RehearsalReport {
  result: "ok" | "failed";
  failure: { step: string; reason: string } | null;
  steps: { step: string; ms: number | null; note?: string }[];
  total_ms: number;
  blocks_after_upgrade: number;
  peak_memory_bytes: number;
  peak_disk_bytes: number;
}

/** When the live node logged each height committed (performance.now()), and waits on heights to come. */
class CommitTimes {
  readonly at = new Map<number, number>();
  /** The node's own time on each block (its `ms`: make, save, execute, commit, the fsyncs among them). */
  readonly work = new Map<number, number>();
  private readonly waiters: { height: number; resolve: () => void }[] = [];
  latest = 0;

  observe(line: string): void {
    const m = line.match(/committed block .*height=(\d+)/);
    if (!m) return;
    const h = Number(m[1]);
    if (!this.at.has(h)) this.at.set(h, performance.now());
    const ms = line.match(/\bms=(\d+)/);
    if (ms) this.work.set(h, Number(ms[1]));
    this.latest = Math.max(this.latest, h);
    for (const w of this.waiters.filter((x) => x.height <= h)) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve();
    }
  }

  /** Resolves once `height` is committed; a log line, not an RPC poll, so the waiting adds no load. */
  reach(height: number, timeoutMs: number): Promise<void> {
    if (this.latest >= height) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`height ${height} not committed in ${timeoutMs} ms`)),
        timeoutMs,
      );
      this.waiters.push({
        height,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Heights whose interval from the height before lies within [from, to] (performance.now() times). */
  heightsWithin(from: number, to: number): number[] {
    const out: number[] = [];
    for (const [h, t] of this.at) {
      const prev = this.at.get(h - 1);
      if (prev !== undefined && prev >= from && t <= to) out.push(h);
    }
    return out;
  }
}

/** The live node's main thread (the one making blocks): CPU time and time waiting for a CPU, in ms. */
function schedstat(pid: number): { runMs: number; waitMs: number } {
  const [run, wait] = readFileSync(`/proc/${pid}/schedstat`, "utf8").trim().split(/\s+/).map(Number);
  return { runMs: run / 1e6, waitMs: wait / 1e6 };
}

/** The pid of the node visor runs on `home` (not a rehearsal copy's, whose home is another folder). */
function liveDaemonPid(home: string): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").filter(Boolean);
      const chaind = argv.findIndex((a) => a.endsWith("/bin/chaind"));
      if (chaind >= 0 && argv[chaind + 1] === "start" && argv.at(-2) === "--home" && argv.at(-1) === home)
        return Number(entry);
    } catch {
      // Gone.
    }
  }
  throw new Error(`no node running on ${home}`);
}

/**
 * One window of the live node's blocks: its block intervals' median, p90 and max, the node's own time per block
 * (median `ms`), and its main thread's CPU and run-queue wait per block.
 */
interface Window {
  median: number;
  p90: number;
  max: number;
  blocks: number;
  workMs: number;
  cpuPerBlockMs: number;
  waitPerBlockMs: number;
}

/** Measures the window `during` spans: from its start to when it resolves. */
async function measureWindow(
  commits: CommitTimes,
  pid: number,
  during: () => Promise<void>,
): Promise<Window> {
  const from = performance.now();
  const s0 = schedstat(pid);
  await during();
  const s1 = schedstat(pid);
  const heights = commits.heightsWithin(from, performance.now());
  if (heights.length < 3) throw new Error(`only ${heights.length} block intervals in a window`);
  const intervals = heights.map((h) => (commits.at.get(h) ?? 0) - (commits.at.get(h - 1) ?? 0));
  const blocks = heights.length;
  return {
    median: median(intervals),
    p90: percentile(intervals, 90),
    max: Math.max(...intervals),
    blocks,
    workMs: median(heights.map((h) => commits.work.get(h) ?? Number.NaN)),
    cpuPerBlockMs: (s1.runMs - s0.runMs) / blocks,
    waitPerBlockMs: (s1.waitMs - s0.waitMs) / blocks,
  };
}

const STEP_NAMES = [
  "download",
  "verify",
  "copy",
  "run_to_halt",
  "switch",
  "pre_upgrade",
  "start_new_binary",
  "handler",
];
/** The copy's own halt to its upgrade block: what the real halt's downtime is made of, on the copy. */
const COPY_DOWNTIME_STEPS = ["switch", "pre_upgrade", "start_new_binary", "handler"];

/**
 * Issue 33: one validator (embedded engine) under visor on the v1 fixture release, v2 scheduled; `visor
 * rehearse` run back to back while the node commits blocks at 300 ms, its block intervals during the rehearsals
 * set against its own intervals before and after them; then the real upgrade on the same node, whose downtime
 * (longest block gap at the halt, read as section 5 reads it) is set against the rehearsal's total time.
 */
export async function rehearsalBesideValidator(opts: BenchOptions): Promise<BenchSection> {
  const quick = opts.quick;
  const quiet = quick ? QUIET_BLOCKS.quick : QUIET_BLOCKS.full;
  const rehearsals = quick ? 1 : REHEARSALS_FULL;
  const dir = scratchDir("rehearsal");
  const commits = new CommitTimes();
  const notes: string[] = [];
  let server: ReleaseServer | null = null;
  let net: LocalTestnet | null = null;
  try {
    const served = join(dir.path, "served");
    mkdirSync(served);
    server = await ReleaseServer.start({ dir: served });
    const v1 = await buildFixtureRelease("v1", served, server.url);
    const v2 = await buildFixtureRelease("v2", served, server.url);
    await extractTar({ file: v1.archive, cwd: dir.path });
    net = await LocalTestnet.create({
      dir: join(dir.path, "net"),
      genesisBinary: join(dir.path, "bin", "chaind"),
      blockTime: `${BLOCK_TIME_MS}ms`,
      votingPeriod: "10s",
      visorEnv: {
        // As in section 5: the machine has never run v2 (here until the first rehearsal runs it).
        XDG_CACHE_HOME: join(dir.path, "cache"),
        // The rehearsal fetches and verifies v2 into prefetch/, which the real halt installs.
        VISOR_PREFETCH: "false",
        DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "true",
      },
      echo: (line) => commits.observe(line),
    });
    const live = net;
    await live.start();
    await live.proposeUpgrade({ name: "v2", height: (await live.height()) + FAR_AHEAD, info: v2.planInfo });

    const pid = liveDaemonPid(live.home);

    // Before: the proposal's CLI processes are done; a few blocks let the node settle first.
    await commits.reach(commits.latest + 3, 30_000);
    const before = await measureWindow(commits, pid, () =>
      commits.reach(commits.latest + quiet + 1, 120_000),
    );

    const reports: RehearsalReport[] = [];
    const during: Window[] = [];
    for (let i = 0; i < rehearsals; i++) {
      let out = "";
      const w = await measureWindow(commits, pid, async () => {
        const r = await execa("node", [VISOR_CLI, "rehearse", "-o", "json"], {
          env: live.visorEnv,
          reject: false,
        });
        if (r.exitCode !== 0) throw new Error(`visor rehearse exited ${r.exitCode}: ${r.stderr.trim()}`);
        out = r.stdout;
      });
      const report = JSON.parse(out) as RehearsalReport;
      if (report.result !== "ok")
        throw new Error(`rehearsal ${i + 1} failed: ${JSON.stringify(report.failure)}`);
      reports.push(report);
      during.push(w);
    }

    const after = await measureWindow(commits, pid, () => commits.reach(commits.latest + quiet + 1, 120_000));

    // The real upgrade: the plan brought near (a new plan replaces the scheduled one), far enough ahead for the
    // proposal's CLI processes and voting period on a busy machine.
    const height = (await live.height()) + 100;
    live.mark();
    await live.proposeUpgrade({ name: "v2", height, info: v2.planInfo });
    await live.waitForLine(/UPGRADE "v2" NEEDED/, 120_000);
    await commits.reach(height, 120_000);
    const last = commits.at.get(height - 1);
    const first = commits.at.get(height);
    if (last === undefined || first === undefined)
      throw new Error(`commit lines of heights ${height - 1} and ${height} not seen`);
    const installed = live.lines.some((l) => /installed the pre-fetched binary .*plan=v2/.test(l));
    await live.stop();
    net = null;

    const quietWindows = [before, after];
    const intervalFloor = figure(
      "block interval, no rehearsal (before, after): median",
      "ms",
      quietWindows.map((w) => w.median),
    );
    const p90Floor = figure(
      "block interval, no rehearsal: p90",
      "ms",
      quietWindows.map((w) => w.p90),
    );
    const downtime = figure("real upgrade's downtime on the same node (pre-fetched by the rehearsal)", "ms", [
      first - last,
    ]);
    const stepMs = (report: RehearsalReport, name: string) =>
      report.steps.find((s) => s.step === name)?.ms ?? null;
    const stepFigures = STEP_NAMES.flatMap((name) => {
      const samples = reports.map((r) => stepMs(r, name)).filter((ms): ms is number => ms !== null);
      return samples.length > 0 ? [figure(`  rehearsal step: ${name}`, "ms", samples)] : [];
    });
    const download = reports[0].steps.find((s) => s.step === "download");
    notes.push(
      `${rehearsals} rehearsal(s) back to back, each \`visor rehearse -o json\` (nice 10) to its 3 blocks of v2 on the copy; ${before.blocks} intervals before, ${during.reduce((n, w) => n + w.blocks, 0)} during (${during.map((w) => w.blocks).join(", ")}), ${after.blocks} after. An interval counts as during a rehearsal when both its blocks were committed between the \`visor rehearse\` process's spawn and its exit (the copy is removed by then).`,
      `Longest interval: ${Math.round(Math.max(before.max, after.max))} ms without a rehearsal, ${during.map((w) => Math.round(w.max)).join(", ")} ms during each.`,
      `Where the live node's time per block went (before / during each rehearsal / after): its own time on a block (median of the commit line's \`ms\`: make, save, execute, commit, two fsyncs) ${[before, ...during, after].map((w) => Math.round(w.workMs)).join(" / ")} ms; its main thread's CPU ${[before, ...during, after].map((w) => w.cpuPerBlockMs.toFixed(1)).join(" / ")} ms and time runnable but waiting for a core ${[before, ...during, after].map((w) => w.waitPerBlockMs.toFixed(1)).join(" / ")} ms per block (/proc/<pid>/schedstat).`,
      `Only the first rehearsal downloads and verifies v2 (${download?.ms ?? "?"} ms + ${stepMs(reports[0], "verify") ?? "?"} ms); the later ones find it verified in prefetch/. The real halt at height ${height} ${installed ? "installed that pre-fetched binary" : "did NOT log installing the pre-fetched binary"}, and found v2's code cache the rehearsals left (section 5's upgrades start v2 with none).`,
      `Peak memory of a rehearsal: ${reports.map((r) => Math.round(r.peak_memory_bytes / 2 ** 20)).join(", ")} MiB; peak disk beyond what the copy shares with the live home: ${reports.map((r) => (r.peak_disk_bytes / 2 ** 20).toFixed(1)).join(", ")} MiB.`,
      "The copy's halt -> upgrade block is read by the rehearsal polling the copy every 250 ms, so it is that coarse.",
    );
    return {
      id: "rehearsal",
      title: "Rehearsal beside a live validator",
      params: {
        rehearsals,
        blocksBefore: before.blocks,
        blocksDuring: during.reduce((n, w) => n + w.blocks, 0),
        blocksAfter: after.blocks,
        blockTimeMs: BLOCK_TIME_MS,
      },
      figures: [
        intervalFloor,
        figure(
          "block interval during a rehearsal: median",
          "ms",
          during.map((w) => w.median),
          intervalFloor,
        ),
        p90Floor,
        figure(
          "block interval during a rehearsal: p90",
          "ms",
          during.map((w) => w.p90),
          p90Floor,
        ),
        downtime,
        figure(
          "rehearsal, total",
          "ms",
          reports.map((r) => r.total_ms),
          downtime,
        ),
        figure(
          "rehearsal: the copy's halt -> upgrade block (switch + pre_upgrade + start + handler)",
          "ms",
          reports.map((r) => COPY_DOWNTIME_STEPS.reduce((n, s) => n + (stepMs(r, s) ?? 0), 0)),
          downtime,
        ),
        ...stepFigures,
      ],
      notes,
    };
  } catch (e) {
    const tail = net ? `; last lines:\n${net.lines.slice(-15).join("\n")}` : "";
    throw new Error(`${(e as Error).message}${tail}`);
  } finally {
    await stopVisorAndSweep(net, dir.path, notes);
    await server?.close();
    dir.remove();
  }
}
