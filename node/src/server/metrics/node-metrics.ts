import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { NodeCore } from "../../chain/node-app.js";
import type { BlockStore } from "../../consensus/block-store.js";
import type { Mempool } from "../../consensus/mempool.js";

/** A node as its metrics read it: the embedded engine's has blocks and a mempool of its own. */
export type MetricsNode = NodeCore & { blocks?: BlockStore; mempool?: Mempool; votingPower?(): bigint };

import { type GrpcCode, grpcCodeName } from "../../errors/grpc-code.js";

/** Where a query came in. */
export type QueryServer = "rest" | "grpc";

/**
 * Every metric the node's servers export, declared here and nowhere else. Chain figures (height, block time,
 * txs, mempool) are read from the node when Prometheus scrapes; query and store figures are counted as they
 * happen.
 */
export class NodeMetrics {
  readonly registry = new Registry();
  private readonly queries: Counter<"server" | "route" | "code">;
  private readonly queryDuration: Histogram<"server" | "route">;
  private readonly storeOps: Counter<"op">;
  private txsSeenHeight: number;

  constructor(node: MetricsNode) {
    const registers = [this.registry];
    this.txsSeenHeight = node.store.latestHeight;
    new Gauge({
      name: "chain_block_height",
      help: "Height of the latest committed block.",
      registers,
      collect() {
        this.set(node.store.latestHeight);
      },
    });
    // The embedded engine's blocks and mempool; under CometBFT, its own metrics say these.
    const { blocks, mempool } = node;
    if (blocks && mempool) this.embeddedEngineMetrics(node, blocks, mempool);
    let checkedAhead = 0;
    new Counter({
      name: "chain_signatures_checked_ahead_total",
      help: "Signatures verified on the signature thread ahead of CheckTx since this process started.",
      registers,
      collect() {
        const checked = node.signatureThread.checked;
        this.inc(checked - checkedAhead);
        checkedAhead = checked;
      },
    });
    this.queries = new Counter({
      name: "chain_queries_total",
      help: "Queries answered, by server, route and gRPC status.",
      labelNames: ["server", "route", "code"],
      registers,
    });
    this.queryDuration = new Histogram({
      name: "chain_query_duration_seconds",
      help: "Time to answer a query, by server and route.",
      labelNames: ["server", "route"],
      buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
      registers,
    });
    this.storeOps = new Counter({
      name: "chain_store_operations_total",
      help: "State store reads (gets and iterations) and writes (keys committed).",
      labelNames: ["op"],
      registers,
    });
    node.store.opCounter = {
      read: () => this.storeOps.inc({ op: "read" }),
      write: (keys) => this.storeOps.inc({ op: "write" }, keys),
    };
  }

  observeQuery(server: QueryServer, route: string, code: GrpcCode, seconds: number): void {
    this.queries.inc({ server, route, code: grpcCodeName(code) });
    this.queryDuration.observe({ server, route }, seconds);
  }

  private embeddedEngineMetrics(node: MetricsNode, blocks: BlockStore, mempool: Mempool): void {
    const { store } = node;
    const registers = [this.registry];
    new Gauge({
      name: "chain_block_time_seconds",
      help: "Header time of the latest committed block, as Unix seconds.",
      registers,
      async collect() {
        const block = store.latestHeight ? await blocks.block(store.latestHeight) : undefined;
        const t = block?.header?.time;
        if (t) this.set(Number(t.seconds) + t.nanos / 1e9);
      },
    });
    // CometBFT's names for what it would say of these blocks (its consensus and mempool metrics, labelled with
    // the chain id as CometBFT labels them), so dashboards made for CometBFT nodes read this engine too.
    const comet = { registers, labelNames: ["chain_id"] as const };
    const chain = { chain_id: node.chainId };
    const txs = new Counter({
      name: "chain_txs_total",
      help: "Transactions included in blocks committed since this process started.",
      registers,
      collect: () => catchUp(),
    });
    const totalTxs = new Gauge({
      ...comet,
      name: "cometbft_consensus_total_txs",
      help: "Total number of transactions.",
      collect: () => catchUp(),
    });
    const interval = new Histogram({
      ...comet,
      name: "cometbft_consensus_block_interval_seconds",
      help: "Time between this and the last block.",
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
      collect: () => catchUp(),
    });
    let pending: Promise<void> | null = null;
    let prev: number | undefined;
    // Blocks committed since the last scrape (at most the last 1,000) add to the counts and intervals, once:
    // whichever of those metrics is serialized first asks.
    const catchUp = () => {
      pending ??= (async () => {
        const latest = store.latestHeight;
        for (let h = Math.max(this.txsSeenHeight + 1, latest - 999); h <= latest; h++) {
          const meta = await blocks.meta(h);
          if (!meta) continue;
          txs.inc(Number(meta.numTxs));
          totalTxs.inc(chain, Number(meta.numTxs));
          const t = meta.header?.time;
          const at = t ? Number(t.seconds) + t.nanos / 1e9 : undefined;
          if (at !== undefined && prev !== undefined) interval.observe(chain, Math.max(0, at - prev));
          prev = at;
        }
        this.txsSeenHeight = latest;
      })().finally(() => {
        pending = null;
      });
      return pending;
    };
    const latestTxs = async () => {
      await catchUp();
      const last = store.latestHeight ? await blocks.meta(store.latestHeight) : undefined;
      return Number(last?.numTxs ?? 0n);
    };
    new Gauge({
      name: "chain_block_txs",
      help: "Transactions in the latest committed block.",
      registers,
      async collect() {
        this.set(await latestTxs());
      },
    });
    new Gauge({
      ...comet,
      name: "cometbft_consensus_num_txs",
      help: "Number of transactions.",
      async collect() {
        this.set(chain, await latestTxs());
      },
    });
    for (const name of ["cometbft_consensus_height", "cometbft_consensus_latest_block_height"])
      new Gauge({
        ...comet,
        name,
        help: name.endsWith("latest_block_height") ? "The latest block height." : "Height of the chain.",
        collect() {
          this.set(chain, store.latestHeight);
        },
      });
    // The embedded engine's one validator: this home's key.
    new Gauge({
      ...comet,
      name: "cometbft_consensus_validators",
      help: "Number of validators.",
      collect() {
        this.set(chain, 1);
      },
    });
    new Gauge({
      ...comet,
      name: "cometbft_consensus_validators_power",
      help: "Total power of all validators.",
      collect() {
        this.set(chain, Number(node.votingPower?.() ?? 0n));
      },
    });
    new Gauge({
      name: "chain_mempool_size",
      help: "Transactions waiting in the mempool.",
      registers,
      collect() {
        this.set(mempool.size);
      },
    });
    new Gauge({
      ...comet,
      name: "cometbft_mempool_size",
      help: "Number of uncommitted transactions in the mempool.",
      collect() {
        this.set(chain, mempool.size);
      },
    });
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

const byNode = new WeakMap<MetricsNode, NodeMetrics>();

/**
 * The node's metrics when app.toml's `telemetry.enabled` is on, else null. One instance per node, shared
 * by the listeners that record into it (each is started on its own by `chaind start`).
 */
export function metricsOf(node: MetricsNode): NodeMetrics | null {
  if (!node.appConfig.telemetry.enabled) return null;
  let m = byNode.get(node);
  if (!m) {
    m = new NodeMetrics(node);
    byNode.set(node, m);
  }
  return m;
}
