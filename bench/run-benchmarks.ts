// `npm run bench [-- --quick] [-- --only rest,grpc]`: runs the benchmarks of issue 8 in priority order, writes
// bench/results/<date>.json and regenerates docs/BENCHMARKS.md from it. Not part of `npm test`.

import { loadavg } from "node:os";
import { backup } from "./backup.js";
import { type BenchOptions, parseBenchOptions } from "./bench-options.js";
import { stopAllBenchProcesses } from "./bench-process.js";
import type { BenchSection, BenchSkipped } from "./bench-result.js";
import { writeBenchmarksDoc } from "./benchmarks-doc.js";
import { cometbftThroughput } from "./cometbft-throughput.js";
import { detectionLatency } from "./detection-latency.js";
import { downloadVerify } from "./download-verify.js";
import { grpcThroughput } from "./grpc-throughput.js";
import { historyReads } from "./history-reads.js";
import { killLeftoverProcesses } from "./leftover-processes.js";
import { describeMachine } from "./machine.js";
import { networkBench } from "./network.js";
import { nodeMemory } from "./node-memory.js";
import { rehearsalBesideValidator } from "./rehearsal-beside-validator.js";
import { restThroughput } from "./rest-throughput.js";
import { type BenchResults, readLatestResults, resultsPath, writeResults } from "./results-file.js";
import { liveScratchDirs, removeAllScratchDirs } from "./scratch-dir.js";
import { startup } from "./startup.js";
import { txThroughput } from "./tx-throughput.js";
import { upgradeDowntime } from "./upgrade-downtime.js";

type Benchmark = (opts: BenchOptions) => Promise<BenchSection | BenchSkipped>;

/** Priority order (issue 8): what runs first when time is short. */
const BENCHMARKS: [id: string, run: Benchmark][] = [
  ["rest", restThroughput],
  ["grpc", grpcThroughput],
  ["tx", txThroughput],
  ["detection", detectionLatency],
  ["download", downloadVerify],
  ["backup", backup],
  ["downtime", upgradeDowntime],
  ["history", historyReads],
  ["memory", nodeMemory],
  ["startup", startup],
  ["cometbft", cometbftThroughput],
  ["network", networkBench],
  ["rehearsal", rehearsalBesideValidator],
];

/** The order sections appear in the results and the doc (issue 8's numbering, then later issues'). */
export const SECTION_ORDER = [
  "rest",
  "grpc",
  "history",
  "tx",
  "downtime",
  "detection",
  "download",
  "backup",
  "memory",
  "startup",
  "cometbft",
  "network",
  "rehearsal",
];

async function main(): Promise<void> {
  const opts = parseBenchOptions(process.argv.slice(2));
  const unknown = (opts.only ?? []).filter((id) => !BENCHMARKS.some(([known]) => known === id));
  if (unknown.length > 0)
    throw new Error(
      `unknown benchmark ${unknown.join(", ")}; known: ${BENCHMARKS.map(([id]) => id).join(", ")}`,
    );
  if (opts.docOnly) {
    console.log(`bench: regenerated ${writeBenchmarksDoc(readLatestResults(), SECTION_ORDER)}`);
    return;
  }
  const started = performance.now();
  const machine = describeMachine();
  console.log(
    `bench: ${opts.quick ? "quick" : "full"} run on ${machine.cores} cores (${machine.cpuModel}), Node ${machine.node}`,
  );
  const run: BenchResults = {
    date: new Date().toISOString().slice(0, 10),
    mode: opts.quick ? "quick" : "full",
    machine,
    sections: [],
    failures: [],
  };
  for (const [id, bench] of BENCHMARKS) {
    if (opts.only && !opts.only.includes(id)) continue;
    const t0 = performance.now();
    console.log(`bench: ${id} ...`);
    try {
      const section = await bench(opts);
      if ("skipped" in section) {
        console.log(`bench: ${id} skipped: ${section.skipped}`);
        continue;
      }
      // The machine's 1-minute load when the section ended: other work on the same cores shows up here.
      const load = Math.round(loadavg()[0] * 10) / 10;
      section.params = { mode: opts.quick ? "quick" : "full", ...section.params, load1m: load };
      run.sections.push(section);
      for (const f of section.figures)
        console.log(
          `  ${f.name}: ${f.median} ${f.unit}${f.ratio !== undefined ? ` (ratio ${f.ratio} to ${f.ceiling})` : ""}`,
        );
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      console.error(`bench: ${id} failed: ${error}`);
      run.failures.push({ id, error });
    }
    console.log(`bench: ${id} took ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }
  const merged = writeResults(run, SECTION_ORDER);
  console.log(`bench: results in ${resultsPath(run.date, run.mode === "quick" ? "quick" : "full")}`);
  // A smoke check must not replace the committed figures: only full runs regenerate the doc.
  if (opts.quick) console.log("bench: --quick leaves docs/BENCHMARKS.md as it is");
  else if (!opts.noDoc) console.log(`bench: regenerated ${writeBenchmarksDoc(merged, SECTION_ORDER)}`);
  console.log(`bench: done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (run.failures.length > 0) process.exitCode = 1;
}

async function cleanUp(): Promise<void> {
  await stopAllBenchProcesses();
  // Daemons started by a supervisor the benchmark started (not its own children) are found by their folder.
  let killed = 0;
  for (const dir of liveScratchDirs()) killed += killLeftoverProcesses(dir).length;
  if (killed > 0) await new Promise((r) => setTimeout(r, 500));
  removeAllScratchDirs();
}

// `on`, not `once`: execa's exit hook re-raises the signal (ending the process before the clean-up) when it
// finds no other listener left.
let interrupted = false;
for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`bench: ${signal}: stopping child processes and removing temp folders`);
    void cleanUp().finally(() => process.exit(130));
  });

try {
  await main();
} catch (e) {
  // Bad flags and the like: one line, no stack.
  console.error(`bench: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 2;
} finally {
  await cleanUp();
}
