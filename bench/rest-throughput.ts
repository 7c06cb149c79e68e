import autocannon from "autocannon";
import { startBareServer } from "./bare-server-process.js";
import { benchAccount } from "./bench-accounts.js";
import { makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import type { BenchProcess } from "./bench-process.js";
import { type BenchSection, type Figure, figure } from "./bench-result.js";
import { ChaindNode } from "./chaind-node.js";
import { scratchDir } from "./scratch-dir.js";

interface Target {
  name: string;
  url: string;
  headers?: Record<string, string>;
}

interface LoadRun {
  reqPerSec: number;
  mean: number;
  p50: number;
  p99: number;
}

async function load(target: Target, opts: BenchOptions): Promise<LoadRun> {
  const r = await autocannon({
    url: target.url,
    connections: opts.connections,
    duration: opts.durationSec,
    headers: target.headers,
  });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${target.name}: ${r.non2xx} non-2xx answers and ${r.errors} errors under load`);
  // autocannon's histogram holds whole milliseconds, so its mean is rounded too; with a fixed number of
  // connections each waiting for its answer (a closed loop), Little's law gives the exact mean instead.
  return {
    reqPerSec: r.requests.average,
    mean: (opts.connections / r.requests.average) * 1000,
    p50: r.latency.p50,
    p99: r.latency.p99,
  };
}

/**
 * Issue 8.1: the REST gateway of a running `chaind start` under autocannon, route by route, against a bare
 * node:http server answering a constant JSON body, with the same connections and duration, runs interleaved.
 */
export async function restThroughput(opts: BenchOptions): Promise<BenchSection> {
  const dir = scratchDir("rest");
  const holder = benchAccount("bench-rest-holder");
  let node: ChaindNode | null = null;
  let bare: BenchProcess | null = null;
  try {
    makeBenchHome({ home: dir.path, funded: [holder.address], timeoutCommitMs: 1000 });
    node = await ChaindNode.start(dir.path);
    const started = await startBareServer("bare-http-server.js");
    bare = started.process;
    const api = node.restUrl;
    const past = Math.max(1, node.height - 1);
    // The paths Cosmos clients use (the same routes are served under /sdk/ too).
    const atPast = { "x-cosmos-block-height": String(past) };
    const targets: Target[] = [
      { name: "bare node:http", url: `http://127.0.0.1:${started.port}/` },
      { name: "current_plan", url: `${api}/cosmos/upgrade/v1beta1/current_plan` },
      { name: "applied_plan/{name}", url: `${api}/cosmos/upgrade/v1beta1/applied_plan/v2` },
      { name: "balances/{addr}", url: `${api}/cosmos/bank/v1beta1/balances/${holder.address}` },
      {
        name: "current_plan at a past height",
        url: `${api}/cosmos/upgrade/v1beta1/current_plan`,
        headers: atPast,
      },
      {
        name: "balances/{addr} at a past height",
        url: `${api}/cosmos/bank/v1beta1/balances/${holder.address}`,
        headers: atPast,
      },
    ];
    const runs = new Map<string, LoadRun[]>(targets.map((t) => [t.name, []]));
    // A short warm-up per target (JIT, LevelDB cache), then the measured runs in rotation.
    for (const t of targets) await load(t, { ...opts, durationSec: 1 });
    for (let i = 0; i < opts.runs; i++) for (const t of targets) runs.get(t.name)!.push(await load(t, opts));
    const figures: Figure[] = [];
    const pick = (name: string, key: keyof LoadRun) => runs.get(name)!.map((r) => r[key]);
    const ceiling = {
      rps: figure("bare node:http req/s", "req/s", pick("bare node:http", "reqPerSec")),
      mean: figure("bare node:http mean latency", "ms", pick("bare node:http", "mean")),
      p50: figure("bare node:http p50", "ms", pick("bare node:http", "p50")),
      p99: figure("bare node:http p99", "ms", pick("bare node:http", "p99")),
    };
    figures.push(ceiling.rps, ceiling.mean, ceiling.p50, ceiling.p99);
    for (const t of targets.slice(1)) {
      figures.push(figure(`${t.name} req/s`, "req/s", pick(t.name, "reqPerSec"), ceiling.rps));
      figures.push(figure(`${t.name} mean latency`, "ms", pick(t.name, "mean"), ceiling.mean));
      figures.push(figure(`${t.name} p50`, "ms", pick(t.name, "p50"), ceiling.p50));
      figures.push(figure(`${t.name} p99`, "ms", pick(t.name, "p99"), ceiling.p99));
    }
    return {
      id: "rest",
      title: "REST throughput and latency",
      params: {
        connections: opts.connections,
        durationSec: opts.durationSec,
        runs: opts.runs,
        historicalHeight: past,
      },
      figures,
      notes: [
        "autocannon reports latency percentiles in whole milliseconds; the mean latency is connections / req/s (Little's law for a closed loop), exact, so its ratio is the one to read.",
        "autocannon runs in the benchmark process; the node and the bare server each run in their own process.",
        "Targets (issue 8.1): current_plan >= 0.60 of bare req/s, balances/{addr} >= 0.40, any route at a past height >= 0.35; each ratio is of medians over interleaved runs.",
      ],
    };
  } finally {
    await bare?.stop();
    await node?.stop();
    dir.remove();
  }
}
