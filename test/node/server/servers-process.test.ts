import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredMetrics, grafanaDashboardMetrics } from "../../grafana-dashboard.js";
import { NodeProcess } from "../helpers/chaind-process.js";
import { makeTestHome, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const raw = (b: Buffer) => b;

/** The value of one sample line (`name{labels} value`) of Prometheus text, or undefined. */
function sample(text: string, name: string, labels = ""): number | undefined {
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (labels ? rest.startsWith("{") && rest.includes(labels) : rest.startsWith(" "))
      return Number(line.split(" ").pop());
  }
  return undefined;
}

describe("chaind start with gRPC, REST and telemetry listeners", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  const addr: Record<string, string> = {};

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "5000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
        c.api.enabledUnsafeCors = true;
        c.telemetry.enabled = true;
      },
    });
    node = new NodeProcess(home.home);
    for (const name of ["api", "grpc", "telemetry"])
      addr[name] = (await node.waitFor(new RegExp(`${name} listening address=(\\S+)`)))[1];
    await node.waitFor(/committed block .*height=2 /);
  });
  afterAll(async () => {
    node?.proc.kill("SIGTERM");
    await node?.proc;
    home?.cleanup();
  });

  it("serves REST and gRPC on the logged addresses and warns that CORS is for development", async () => {
    expect(node.lines.some((l) => /CORS is on .* development only/.test(l))).toBe(true);
    const rest = await fetch(
      `${addr.api}/cosmos/bank/v1beta1/balances/${alice.address}/by_denom?denom=stake`,
    );
    expect(rest.status).toBe(200);
    expect(await rest.json()).toEqual({ balance: { denom: "stake", amount: "5000" } });

    const client = new grpc.Client(addr.grpc, grpc.credentials.createInsecure());
    const req = toBinary(
      QueryBalanceRequestSchema,
      create(QueryBalanceRequestSchema, { address: alice.address, denom: "stake" }),
    );
    const value = await new Promise<Buffer>((resolve, reject) =>
      client.makeUnaryRequest("/cosmos.bank.v1beta1.Query/Balance", raw, raw, Buffer.from(req), (err, v) =>
        err ? reject(err) : resolve(v!),
      ),
    );
    client.close();
    expect(fromBinary(QueryBalanceResponseSchema, value).balance?.amount).toBe("5000");
  });

  it("exports Prometheus metrics: chain, mempool, queries by route and store operations", async () => {
    const res = await fetch(`${addr.telemetry}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const text = await res.text();
    expect(sample(text, "chain_block_height")).toBeGreaterThanOrEqual(2);
    expect(sample(text, "chain_block_time_seconds")).toBeGreaterThan(1.7e9);
    expect(sample(text, "chain_mempool_size")).toBe(0);
    expect(sample(text, "chain_txs_total")).toBe(0);
    expect(sample(text, "chain_signatures_checked_ahead_total")).toBe(0);
    expect(
      sample(
        text,
        "chain_queries_total",
        'server="rest",route="GET /sdk/bank/v1beta1/balances/{address}/by_denom",code="OK"',
      ),
    ).toBe(1);
    expect(
      sample(
        text,
        "chain_queries_total",
        'server="grpc",route="/cosmos.bank.v1beta1.Query/Balance",code="OK"',
      ),
    ).toBe(1);
    expect(sample(text, "chain_query_duration_seconds_count", 'server="grpc"')).toBe(1);
    expect(sample(text, "chain_store_operations_total", 'op="read"')).toBeGreaterThan(0);
    expect(sample(text, "chain_store_operations_total", 'op="write"')).toBeGreaterThan(0);
    expect((await fetch(`${addr.telemetry}/other`)).status).toBe(404);

    // CometBFT's names for the same figures, labelled with the chain id, so CometBFT dashboards read them.
    const chain = `chain_id="${home.chainId}"`;
    expect(sample(text, "cometbft_consensus_height", chain)).toBe(sample(text, "chain_block_height"));
    expect(sample(text, "cometbft_consensus_latest_block_height", chain)).toBeGreaterThanOrEqual(2);
    expect(sample(text, "cometbft_consensus_validators", chain)).toBe(1);
    expect(sample(text, "cometbft_consensus_validators_power", chain)).toBeGreaterThan(0);
    expect(sample(text, "cometbft_mempool_size", chain)).toBe(0);
    expect(sample(text, "cometbft_consensus_num_txs", chain)).toBe(0);
    // Block intervals of the blocks committed since the last scrape.
    const seen = Number(sample(text, "chain_block_height"));
    await node.waitFor(new RegExp(`committed block .*height=${seen + 2} `));
    const later = await (await fetch(`${addr.telemetry}/metrics`)).text();
    expect(sample(later, "cometbft_consensus_block_interval_seconds_count", chain)).toBeGreaterThanOrEqual(1);
    expect(sample(later, "cometbft_consensus_block_interval_seconds_sum", chain)).toBeGreaterThan(0);
  });

  it("the Grafana dashboard in docs/grafana reads only metrics chaind exports (visor's: test/supervisor)", async () => {
    const names = grafanaDashboardMetrics().filter((n) => !n.startsWith("visor_"));
    const declared = declaredMetrics(await (await fetch(`${addr.telemetry}/metrics`)).text());
    expect(names.filter((n) => !declared.has(n))).toEqual([]);
    expect(names.length).toBeGreaterThanOrEqual(10);
  });
});
