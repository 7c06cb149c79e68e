import { readFileSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  QueryAccountsRequestSchema,
  QueryAccountsResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../node/src/app/address-codec.js";
import { Coins } from "../../node/src/app/coins.js";
import { MAX_PAGE_LIMIT } from "../../node/src/app/pagination.js";
import { addGenesisAccounts } from "../../node/src/chain/genesis-accounts.js";
import { NodeProcess } from "../node/helpers/chaind-process.js";
import { makeTestHome } from "../node/helpers/test-home.js";
import { reportSoakFigures } from "./soak-report.js";

const ACCOUNTS = 50_000;
const MiB = 1024 * 1024;
const HUGE = "1000000000";
const raw = (b: Buffer) => b;

/** Resident memory of a process, from /proc, in bytes. */
function rss(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Number(m![1]) * 1024;
}

/**
 * Issue 29 point 7: `pagination.limit=1000000000` on a genesis of many accounts made every answer hold them all
 * (8 REST clients stalled blocks for 36 s at 200k accounts). Here at 50k: a page holds at most MAX_PAGE_LIMIT,
 * the walks an offset or count_total ask for are bounded by query gas, and blocks keep committing while several
 * REST and gRPC clients ask at once.
 */
describe("pagination on a genesis of many accounts", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  const addr: Record<string, string> = {};

  const height = () => Math.max(0, ...node.committed().keys());
  const rest = async (query: string) => {
    const r = await fetch(`${addr.api}/cosmos/auth/v1beta1/accounts?${query}`);
    // biome-ignore lint/suspicious/noExplicitAny: the gateway's JSON, read field by field
    return { status: r.status, body: (await r.json()) as any };
  };
  const grpcAccounts = (client: grpc.Client, pagination: { limit: bigint }) =>
    new Promise<{ accounts: number; nextKey: Uint8Array }>((resolve, reject) =>
      client.makeUnaryRequest(
        "/cosmos.auth.v1beta1.Query/Accounts",
        raw,
        raw,
        Buffer.from(toBinary(QueryAccountsRequestSchema, create(QueryAccountsRequestSchema, { pagination }))),
        (err, v) => {
          if (err) return reject(err);
          const r = fromBinary(QueryAccountsResponseSchema, v!);
          resolve({ accounts: r.accounts.length, nextKey: r.pagination?.nextKey ?? new Uint8Array() });
        },
      ),
    );

  beforeAll(async () => {
    const codec = new AddressCodec("sdk");
    home = makeTestHome({
      tuneApp: (c) => {
        c.api.enable = true;
      },
      tuneGenesis: (g) =>
        addGenesisAccounts(
          g,
          Array.from({ length: ACCOUNTS }, (_, i) => {
            const a = new Uint8Array(20);
            new DataView(a.buffer).setUint32(16, i + 1);
            return { address: codec.toString(a), coins: Coins.parse("1stake") };
          }),
          false,
        ),
    });
    node = new NodeProcess(home.home);
    for (const name of ["api", "grpc"])
      addr[name] = (await node.waitFor(new RegExp(`\\b${name} listening address=(\\S+)`), 120_000))[1];
    await node.waitFor(/committed block .*height=2 /, 120_000);
  }, 180_000);
  afterAll(async () => {
    node?.proc.kill("SIGTERM");
    await node?.proc;
    home?.cleanup();
  });

  it("cuts a huge limit to MAX_PAGE_LIMIT with a next_key, over REST and gRPC, while blocks commit", async () => {
    const pid = node.proc.pid!;
    const rssBefore = rss(pid);
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(pid));
    }, 50);
    const before = height();
    const clients = Array.from(
      { length: 4 },
      () => new grpc.Client(addr.grpc, grpc.credentials.createInsecure()),
    );
    const pages: number[] = [];
    // 4 REST and 4 gRPC clients, each asking 5 times for a billion accounts.
    await Promise.all([
      ...Array.from({ length: 4 }, async () => {
        for (let i = 0; i < 5; i++) {
          const r = await rest(`pagination.limit=${HUGE}`);
          expect(r.status).toBe(200);
          expect(r.body.pagination.next_key).toMatch(/^[A-Za-z0-9+/]+=*$/);
          pages.push(r.body.accounts.length);
        }
      }),
      ...clients.map(async (client) => {
        for (let i = 0; i < 5; i++) {
          const r = await grpcAccounts(client, { limit: BigInt(HUGE) });
          expect(r.nextKey.length).toBeGreaterThan(0);
          pages.push(r.accounts);
        }
      }),
    ]);
    clearInterval(sampler);
    for (const c of clients) c.close();
    const after = height();
    reportSoakFigures("pagination-flood", {
      accounts: ACCOUNTS,
      peakRssGrowthMiB: Math.round((peak - rssBefore) / MiB),
      blocksDuringFlood: after - before,
      longestBlockGapMs: node.longestCommitGapMs(before),
    });
    expect(pages).toEqual(Array(40).fill(Number(MAX_PAGE_LIMIT)));
    expect(after).toBeGreaterThan(before);
  });

  it("follows next_key through the accounts a page at a time", async () => {
    const first = await rest(`pagination.limit=${HUGE}`);
    const second = await rest(
      `pagination.limit=${HUGE}&pagination.key=${encodeURIComponent(first.body.pagination.next_key)}`,
    );
    expect(second.status).toBe(200);
    expect(second.body.accounts).toHaveLength(Number(MAX_PAGE_LIMIT));
    const seen = new Set(first.body.accounts.map((a: { address: string }) => a.address));
    expect(second.body.accounts.some((a: { address: string }) => seen.has(a.address))).toBe(false);
  });

  it("stops a deep offset and a count over every account at the query gas limit, naming it", async () => {
    for (const query of [
      `pagination.offset=${ACCOUNTS - 10}&pagination.limit=10`,
      "pagination.count_total=true",
    ]) {
      const r = await rest(query);
      expect(r.status, query).toBe(429);
      expect(r.body.message).toMatch(/out of gas .*query gas limit \(query-gas-limit in app\.toml\)/);
    }
  });
});
