import { chmodSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { VISOR_CLI } from "@chaind/harness/local-testnet";
import { execa } from "execa";
import type { BenchOptions } from "./bench-options.js";
import { BenchProcess } from "./bench-process.js";
import { type BenchSection, figure } from "./bench-result.js";
import { REPO_ROOT } from "./repo-paths.js";
import { scratchDir } from "./scratch-dir.js";

const FAKE_DAEMON = join(REPO_ROOT, "fixtures", "daemons", "fake-daemon.cjs");

function fakeBinary(dir: string, version: string): string {
  const path = join(dir, `fake-${version}`);
  writeFileSync(
    path,
    readFileSync(FAKE_DAEMON, "utf8").replace('const VERSION = "v1";', `const VERSION = "${version}";`),
  );
  chmodSync(path, 0o755);
  return path;
}

/**
 * One sample: visor runs the fake daemon; the benchmark writes upgrade-info.json atomically (as a halting node
 * does) at a random moment and times how long until the daemon prints that its stop handler ran.
 */
async function sample(events: boolean): Promise<number> {
  const dir = scratchDir("detect");
  let visor: BenchProcess | null = null;
  try {
    const home = join(dir.path, "home");
    const env: Record<string, string> = {
      DAEMON_HOME: home,
      DAEMON_NAME: "fake",
      DAEMON_POLL_INTERVAL: "300ms",
      VISOR_WATCH_EVENTS: String(events),
      DAEMON_RESTART_AFTER_UPGRADE: "false",
      UNSAFE_SKIP_BACKUP: "true",
      VISOR_PREFETCH: "false",
      VISOR_RPC_ADDRESS: "http://127.0.0.1:1",
      COSMOVISOR_COLOR_LOGS: "false",
      FAKE_BLOCK_MS: "100000",
      // SIGINT first (a grace > 0), so the daemon can print the moment it is signalled.
      DAEMON_SHUTDOWN_GRACE: "10s",
    };
    const cli = async (args: string[]) => {
      const r = await execa("node", [VISOR_CLI, ...args], { env, reject: false, all: true });
      if (r.exitCode !== 0) throw new Error(`visor ${args.join(" ")} failed: ${r.all}`);
    };
    await cli(["init", fakeBinary(dir.path, "v1")]);
    await cli(["add-upgrade", "v2", fakeBinary(dir.path, "v2")]);
    visor = new BenchProcess("node", [VISOR_CLI, "run", "start"], { env });
    await visor.waitFor(/v1 running from height/, 30_000);
    // A random phase against the poll timer, as a real halt has.
    await new Promise((r) => setTimeout(r, 500 + Math.random() * 300));
    const file = join(home, "data", "upgrade-info.json");
    writeFileSync(`${file}.tmp`, JSON.stringify({ name: "v2", height: 10, info: "" }));
    const from = visor.lines.length;
    const t0 = performance.now();
    renameSync(`${file}.tmp`, file);
    const { at } = await visor.waitFor(/v1 stopping at height/, 10_000, from);
    await visor.proc;
    return at - t0;
  } finally {
    await visor?.stop();
    dir.remove();
  }
}

/** Issue 8.6: upgrade-info.json written -> daemon signalled, by file event and by 300 ms polling alone. */
export async function detectionLatency(opts: BenchOptions): Promise<BenchSection> {
  const samples = opts.quick ? 2 : 15;
  const byEvent: number[] = [];
  const byPoll: number[] = [];
  for (let i = 0; i < samples; i++) {
    byEvent.push(await sample(true));
    byPoll.push(await sample(false));
  }
  const poll = figure("by poll (DAEMON_POLL_INTERVAL=300ms, cosmovisor's default)", "ms", byPoll);
  return {
    id: "detection",
    title: "Supervisor detection latency",
    params: { samplesPerMode: samples, pollInterval: "300ms" },
    figures: [poll, figure("by file event (VISOR_WATCH_EVENTS=true)", "ms", byEvent, poll)],
    notes: [
      `By poll: min ${Math.round(Math.min(...byPoll))} ms, max ${Math.round(Math.max(...byPoll))} ms; by event: min ${Math.round(Math.min(...byEvent))} ms, max ${Math.round(Math.max(...byEvent))} ms.`,
      "The ratio here is event / poll: below 1 means the event path is faster than cosmovisor's polling.",
    ],
  };
}
