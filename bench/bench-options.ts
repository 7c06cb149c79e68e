import { parseArgs } from "node:util";

/** Sizes and switches of one `npm run bench` run. */
export interface BenchOptions {
  quick: boolean;
  /** Runs per figure; the median is reported. */
  runs: number;
  /** autocannon / gRPC load: seconds per run and concurrent connections (the same for every target). */
  durationSec: number;
  connections: number;
  /** Signed sends per transaction-throughput run. */
  txs: number;
  /** Big-history chain: blocks and genesis accounts (issue 8 asks for 100k each). */
  historyBlocks: number;
  accounts: number;
  /** Artifact size for the download benchmark and data-folder size for the backup benchmark. */
  downloadMb: number;
  backupMb: number;
  /** Benchmark ids to run (default all), e.g. `--only rest,grpc`. */
  only: string[] | null;
  /** Write the results file only, leaving docs/BENCHMARKS.md as it is. */
  noDoc: boolean;
  /** Run nothing: regenerate docs/BENCHMARKS.md from the newest results file (after editing the template). */
  docOnly: boolean;
}

const FULL = {
  runs: 3,
  durationSec: 10,
  connections: 16,
  txs: 2000,
  historyBlocks: 100_000,
  accounts: 100_000,
  downloadMb: 1024,
  backupMb: 2048,
};
const QUICK = {
  runs: 1,
  durationSec: 2,
  connections: 16,
  txs: 300,
  historyBlocks: 2000,
  accounts: 2000,
  downloadMb: 128,
  backupMb: 128,
};

export const BENCH_USAGE = `usage: npm run bench -- [--quick] [--only rest,grpc,tx,detection,download,backup,downtime,history,memory,startup,cometbft,network,rehearsal]
  [--runs N] [--duration S] [--connections N] [--txs N] [--history-blocks N] [--accounts N]
  [--download-mb N] [--backup-mb N] [--no-doc] [--doc-only]`;

export function parseBenchOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: "boolean", default: false },
      runs: { type: "string" },
      duration: { type: "string" },
      connections: { type: "string" },
      txs: { type: "string" },
      "history-blocks": { type: "string" },
      accounts: { type: "string" },
      "download-mb": { type: "string" },
      "backup-mb": { type: "string" },
      only: { type: "string" },
      "no-doc": { type: "boolean", default: false },
      "doc-only": { type: "boolean", default: false },
      help: { type: "boolean", default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(BENCH_USAGE);
    process.exit(0);
  }
  const base = values.quick ? QUICK : FULL;
  const num = (v: string | undefined, dflt: number, name: string) => {
    if (v === undefined) return dflt;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got ${v}`);
    return n;
  };
  return {
    quick: values.quick,
    runs: num(values.runs, base.runs, "runs"),
    durationSec: num(values.duration, base.durationSec, "duration"),
    connections: num(values.connections, base.connections, "connections"),
    txs: num(values.txs, base.txs, "txs"),
    historyBlocks: num(values["history-blocks"], base.historyBlocks, "history-blocks"),
    accounts: num(values.accounts, base.accounts, "accounts"),
    downloadMb: num(values["download-mb"], base.downloadMb, "download-mb"),
    backupMb: num(values["backup-mb"], base.backupMb, "backup-mb"),
    only: values.only ? values.only.split(",").map((s) => s.trim()) : null,
    noDoc: values["no-doc"],
    docOnly: values["doc-only"],
  };
}
