import { Client, credentials, Metadata } from "@grpc/grpc-js";
import { startBareServer } from "./bare-server-process.js";
import { makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import type { BenchProcess } from "./bench-process.js";
import { type BenchSection, type Figure, figure } from "./bench-result.js";
import { ChaindNode } from "./chaind-node.js";
import { percentile } from "./median-ratio.js";
import { scratchDir } from "./scratch-dir.js";

const BARE_METHOD = "/bench.Bare/Get";
const NODE_METHOD = "/sdk.upgrade.v1beta1.Query/CurrentPlan";
const raw = (b: Buffer) => b;

interface LoadRun {
  callsPerSec: number;
  mean: number;
  p50: number;
  p99: number;
}

/** Keeps `connections` unary calls in flight on one channel for `durationSec`; every answer must be OK. */
async function load(
  address: string,
  method: string,
  durationSec: number,
  inFlight: number,
): Promise<LoadRun> {
  const client = new Client(address, credentials.createInsecure());
  const empty = Buffer.alloc(0);
  const latencies: number[] = [];
  const call = () =>
    new Promise<void>((resolve, reject) => {
      const t0 = performance.now();
      client.makeUnaryRequest(method, raw, raw, empty, new Metadata(), (err) => {
        if (err) reject(err);
        else {
          latencies.push(performance.now() - t0);
          resolve();
        }
      });
    });
  try {
    await call();
    latencies.length = 0;
    const started = performance.now();
    const end = started + durationSec * 1000;
    const worker = async () => {
      while (performance.now() < end) await call();
    };
    await Promise.all(Array.from({ length: inFlight }, worker));
    const seconds = (performance.now() - started) / 1000;
    return {
      callsPerSec: latencies.length / seconds,
      mean: latencies.reduce((a, b) => a + b, 0) / latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    client.close();
  }
}

/**
 * Issue 8.2: gRPC CurrentPlan on a running `chaind start` against a bare @grpc/grpc-js server answering a
 * constant message, the same load generator and settings for both, runs interleaved.
 */
export async function grpcThroughput(opts: BenchOptions): Promise<BenchSection> {
  const dir = scratchDir("grpc");
  let node: ChaindNode | null = null;
  let bare: BenchProcess | null = null;
  try {
    makeBenchHome({ home: dir.path, timeoutCommitMs: 1000 });
    node = await ChaindNode.start(dir.path);
    const started = await startBareServer("bare-grpc-server.js", [BARE_METHOD]);
    bare = started.process;
    const targets = [
      { name: "bare grpc-js", address: `127.0.0.1:${started.port}`, method: BARE_METHOD },
      { name: "CurrentPlan", address: node.grpcAddress, method: NODE_METHOD },
    ];
    const runs = new Map<string, LoadRun[]>(targets.map((t) => [t.name, []]));
    for (const t of targets) await load(t.address, t.method, 1, opts.connections);
    for (let i = 0; i < opts.runs; i++)
      for (const t of targets)
        runs.get(t.name)!.push(await load(t.address, t.method, opts.durationSec, opts.connections));
    const pick = (name: string, key: keyof LoadRun) => runs.get(name)!.map((r) => r[key]);
    const figures: Figure[] = [];
    const ceilings = new Map<keyof LoadRun, Figure>();
    const units: [keyof LoadRun, string, string][] = [
      ["callsPerSec", "calls/s", "calls/s"],
      ["mean", "mean latency", "ms"],
      ["p50", "p50", "ms"],
      ["p99", "p99", "ms"],
    ];
    for (const [key, label, unit] of units) {
      const c = figure(`bare grpc-js ${label}`, unit, pick("bare grpc-js", key));
      ceilings.set(key, c);
      figures.push(c);
    }
    for (const [key, label, unit] of units)
      figures.push(figure(`CurrentPlan ${label}`, unit, pick("CurrentPlan", key), ceilings.get(key)));
    return {
      id: "grpc",
      title: "gRPC query throughput",
      params: { inFlight: opts.connections, durationSec: opts.durationSec, runs: opts.runs },
      figures,
      notes: [
        "The load generator (@grpc/grpc-js client) runs in the benchmark process, one channel per target.",
      ],
    };
  } finally {
    await bare?.stop();
    await node?.stop();
    dir.remove();
  }
}
