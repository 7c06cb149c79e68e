import { create, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { QueryBalanceRequestSchema } from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { QueryCurrentPlanRequestSchema } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { ChainNode } from "chaind/chain/chain-node";
import { BENCH_DEFINITION } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, type Figure, figure } from "./bench-result.js";
import { bigHistoryHome, SEND_EVERY } from "./big-history-home.js";

const DISTANCES = [1, 1000, 10_000, 100_000];

/** Mean µs per query over `n` reads at `height`, through the App's query router (what every transport calls). */
async function meanReadMicros(node: ChainNode, path: string, data: Uint8Array, height: number, n: number) {
  for (let i = 0; i < 50; i++) await node.app.query(path, data, height);
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await node.app.query(path, data, height);
  return ((performance.now() - t0) * 1000) / n;
}

/**
 * Issue 8.3: latency of reads at 1, 1k, 10k and 100k blocks back against the same read at the latest height, on
 * the big-history chain; and the store's size on disk per block.
 */
export async function historyReads(opts: BenchOptions): Promise<BenchSection> {
  const chain = await bigHistoryHome(opts);
  // The store's read caches off: every read, at the latest height or a past one, goes to LevelDB.
  let node = await ChainNode.open(
    { home: chain.home, definition: BENCH_DEFINITION, readCacheEntries: 0 },
    { logger: silentLogger },
  );
  try {
    const latest = node.store.latestHeight;
    const reads = opts.quick ? 500 : 3000;
    const queries = [
      {
        name: "Balance",
        path: "/sdk.bank.v1beta1.Query/Balance",
        data: toBinary(
          QueryBalanceRequestSchema,
          create(QueryBalanceRequestSchema, { address: chain.receiver, denom: "stake" }),
        ),
      },
      {
        name: "CurrentPlan",
        path: "/sdk.upgrade.v1beta1.Query/CurrentPlan",
        data: toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema)),
      },
    ];
    const distances = DISTANCES.filter((d) => latest - d >= 1);
    const figures: Figure[] = [];
    const floors = new Map<string, Figure>();
    for (const q of queries) {
      const atLatest: number[] = [];
      const back = new Map<number, number[]>(distances.map((d) => [d, []]));
      // One unmeasured pass over every height first (JIT, LevelDB's block cache), then each run in a rotated
      // order so no height is always the first or the last one read.
      const order = [0, ...distances];
      for (const d of order) await meanReadMicros(node, q.path, q.data, latest - d, Math.ceil(reads / 5));
      for (let r = 0; r < opts.runs; r++) {
        for (let k = 0; k < order.length; k++) {
          const d = order[(k + r) % order.length];
          const micros = await meanReadMicros(node, q.path, q.data, latest - d, reads);
          if (d === 0) atLatest.push(micros);
          else back.get(d)!.push(micros);
        }
      }
      const floor = figure(`${q.name} at the latest height, uncached`, "µs", atLatest);
      floors.set(q.name, floor);
      figures.push(floor);
      for (const d of distances)
        figures.push(figure(`${q.name} ${d.toLocaleString("en-US")} blocks back`, "µs", back.get(d)!, floor));
    }
    // The same latest reads with the caches on, as a node serves them (repeats within a block are cache hits).
    await node.close();
    node = await ChainNode.open({ home: chain.home, definition: BENCH_DEFINITION }, { logger: silentLogger });
    for (const q of queries) {
      await meanReadMicros(node, q.path, q.data, latest, Math.ceil(reads / 5));
      const cached: number[] = [];
      for (let r = 0; r < opts.runs; r++)
        cached.push(await meanReadMicros(node, q.path, q.data, latest, reads));
      figures.push(figure(`${q.name} at the latest height, cached`, "µs", cached, floors.get(q.name)));
    }
    const perBlock = (chain.bytesAtEnd - chain.bytesAfterGenesis) / (chain.blocks - 1);
    figures.push(figure("store size per block (after genesis)", "bytes", [perBlock]));
    figures.push(figure("store size after genesis", "MiB", [chain.bytesAfterGenesis / 1024 / 1024]));
    figures.push(figure("store size at the end", "MiB", [chain.bytesAtEnd / 1024 / 1024]));
    const missing = DISTANCES.filter((d) => latest - d < 1);
    return {
      id: "history",
      title: "Historical reads and store size",
      params: {
        blocks: chain.blocks,
        accounts: chain.accounts,
        readsPerFigure: reads,
        runs: opts.runs,
        sendEveryBlocks: SEND_EVERY,
      },
      figures,
      notes: [
        `Chain built in-process in ${Math.round(chain.buildSeconds)} s (pruning "nothing"); the Balance read is of the account every send pays, so it has a version every ${SEND_EVERY} blocks.`,
        ...(missing.length > 0
          ? [`Not measured at ${missing.join(", ")} blocks back: this chain has only ${latest} blocks.`]
          : []),
        "Reads at the latest height and back are made with the store's read caches off (each one reaches LevelDB), interleaved; the cached row is the latest read with them on. Target (issue 8.3): every read back <= 3x the uncached latest read.",
        "Store size is LevelDB's folder (apparent bytes) after genesis and at the end; per block is the growth divided by the blocks, compaction included.",
      ],
    };
  } finally {
    await node.close();
  }
}
