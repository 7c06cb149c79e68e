import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { ChainNode } from "../../chain/chain-node.js";
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

  constructor(node: ChainNode) {
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
    new Gauge({
      name: "chain_block_time_seconds",
      help: "Header time of the latest committed block, as Unix seconds.",
      registers,
      async collect() {
        const block = node.store.latestHeight ? await node.blocks.block(node.store.latestHeight) : undefined;
        const t = block?.header?.time;
        if (t) this.set(Number(t.seconds) + t.nanos / 1e9);
      },
    });
    const txs = new Counter({
      name: "chain_txs_total",
      help: "Transactions included in blocks committed since this process started.",
      registers,
    });
    const blockTxs: Gauge = new Gauge({
      name: "chain_block_txs",
      help: "Transactions in the latest committed block.",
      registers,
      collect: async () => {
        // Blocks committed since the last scrape add to chain_txs_total.
        const latest = node.store.latestHeight;
        for (let h = Math.max(this.txsSeenHeight + 1, latest - 999); h <= latest; h++) {
          const meta = await node.blocks.meta(h);
          if (meta) txs.inc(Number(meta.numTxs));
        }
        this.txsSeenHeight = latest;
        const last = latest ? await node.blocks.meta(latest) : undefined;
        blockTxs.set(Number(last?.numTxs ?? 0n));
      },
    });
    new Gauge({
      name: "chain_mempool_size",
      help: "Transactions waiting in the mempool.",
      registers,
      collect() {
        this.set(node.mempool.size);
      },
    });
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

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

const byNode = new WeakMap<ChainNode, NodeMetrics>();

/**
 * The node's metrics when app.toml's `telemetry.enabled` is on, else null. One instance per node, shared
 * by the listeners that record into it (each is started on its own by `chaind start`).
 */
export function metricsOf(node: ChainNode): NodeMetrics | null {
  if (!node.appConfig.telemetry.enabled) return null;
  let m = byNode.get(node);
  if (!m) {
    m = new NodeMetrics(node);
    byNode.set(node, m);
  }
  return m;
}
