import { readFileSync } from "node:fs";
import { makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { bigHistoryHome } from "./big-history-home.js";
import { ChaindNode } from "./chaind-node.js";
import { scratchDir } from "./scratch-dir.js";

/** A field of /proc/<pid>/status in MiB (VmRSS: resident now; VmHWM: the peak). */
function procStatusMiB(pid: number, field: "VmRSS" | "VmHWM"): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+) kB`, "m"));
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) / 1024;
}

async function startAndMeasure(home: string): Promise<{ startMs: number; rss: number; peak: number }> {
  const node = await ChaindNode.start(home);
  try {
    // A moment for start-up garbage to be collected, as an operator would see it.
    await new Promise((r) => setTimeout(r, 1000));
    return {
      startMs: node.firstBlockMs,
      rss: procStatusMiB(node.process.pid, "VmRSS"),
      peak: procStatusMiB(node.process.pid, "VmHWM"),
    };
  } finally {
    await node.stop();
  }
}

/**
 * Issue 8.9: RSS of `chaind start` on the big-history home and its start-up time (spawn to first committed
 * block), against the same on a fresh home with one account.
 */
export async function nodeMemory(opts: BenchOptions): Promise<BenchSection> {
  const chain = await bigHistoryHome(opts);
  const fresh = scratchDir("fresh");
  try {
    makeBenchHome({ home: fresh.path, timeoutCommitMs: 1000 });
    const big: Awaited<ReturnType<typeof startAndMeasure>>[] = [];
    const small: Awaited<ReturnType<typeof startAndMeasure>>[] = [];
    // The fresh home's first start runs InitChain: measure its later starts, like the big home's.
    await startAndMeasure(fresh.path);
    for (let i = 0; i < opts.runs; i++) {
      small.push(await startAndMeasure(fresh.path));
      big.push(await startAndMeasure(chain.home));
    }
    const startFloor = figure(
      "start to first block, fresh home",
      "ms",
      small.map((r) => r.startMs),
    );
    const rssFloor = figure(
      "RSS, fresh home",
      "MiB",
      small.map((r) => r.rss),
    );
    const peakFloor = figure(
      "peak RSS, fresh home",
      "MiB",
      small.map((r) => r.peak),
    );
    return {
      id: "memory",
      title: "Node memory and start-up",
      params: { blocks: chain.blocks, accounts: chain.accounts, runs: opts.runs },
      figures: [
        startFloor,
        figure(
          "start to first block, big home",
          "ms",
          big.map((r) => r.startMs),
          startFloor,
        ),
        rssFloor,
        figure(
          "RSS, big home",
          "MiB",
          big.map((r) => r.rss),
          rssFloor,
        ),
        peakFloor,
        figure(
          "peak RSS, big home",
          "MiB",
          big.map((r) => r.peak),
          peakFloor,
        ),
      ],
      notes: [
        "RSS is read from /proc one second after the first committed block; start-up includes one timeout_commit (1 s here) before the first block.",
      ],
    };
  } finally {
    fresh.remove();
  }
}
