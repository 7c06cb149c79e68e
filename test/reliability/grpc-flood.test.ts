import { readFileSync } from "node:fs";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import * as grpc from "@grpc/grpc-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeProcess } from "../node/helpers/chaind-process.js";
import { makeTestHome, testAccount } from "../node/helpers/test-home.js";
import { idleConnections, unfinishedMessages } from "./grpc-flood-clients.js";
import { reportSoakFigures } from "./soak-report.js";

const alice = testAccount("alice");
const MiB = 1024 * 1024;
const raw = (b: Buffer) => b;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The limits at test size: the flood below is what the defaults meet, scaled down so CI can afford it. */
const LIMITS = {
  maxOpenConnections: 64,
  maxConnectionIdle: 2,
  readTimeout: 3,
  maxRecvMsgSize: MiB,
  maxRecvBufferPerConnection: 2 * MiB,
  maxRecvBuffer: 6 * MiB,
};

/** Resident memory of a process, from /proc, in bytes. */
function rss(pid: number): number {
  const m = readFileSync(`/proc/${pid}/status`, "utf8").match(/VmRSS:\s+(\d+) kB/);
  return Number(m![1]) * 1024;
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const end = Date.now() + timeoutMs; Date.now() < end; await sleep(50)) if (check()) return true;
  return check();
}

/**
 * Issue 29 point 7: a client flooding gRPC with idle connections, or with streams each holding an unfinished
 * message, must neither take the node's open files or memory nor stop its blocks, its REST or its RPC.
 */
describe("gRPC under connection and stream floods", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  const addr: Record<string, string> = {};

  const height = () => Math.max(0, ...node.committed().keys());
  const restAndRpcAnswer = async () => {
    const rest = await fetch(`${addr.api}/cosmos/bank/v1beta1/balances/${alice.address}`);
    const rpc = await fetch(`${addr.rpc}/status`);
    return [rest.status, rpc.status];
  };
  const balance = () => {
    const client = new grpc.Client(addr.grpc, grpc.credentials.createInsecure());
    const req = toBinary(
      QueryBalanceRequestSchema,
      create(QueryBalanceRequestSchema, { address: alice.address, denom: "stake" }),
    );
    return new Promise<string | undefined>((resolve, reject) =>
      client.makeUnaryRequest(
        "/cosmos.bank.v1beta1.Query/Balance",
        raw,
        raw,
        Buffer.from(req),
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (err, v) => {
          client.close();
          err ? reject(err) : resolve(fromBinary(QueryBalanceResponseSchema, v!).balance?.amount);
        },
      ),
    );
  };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "5000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
        Object.assign(c.grpc, LIMITS);
      },
    });
    node = new NodeProcess(home.home);
    for (const name of ["rpc", "api", "grpc"])
      addr[name] = (await node.waitFor(new RegExp(`\\b${name} listening address=(\\S+)`)))[1];
    await node.waitFor(/committed block .*height=2 /);
  });
  afterAll(async () => {
    node?.proc.kill("SIGTERM");
    await node?.proc;
    home?.cleanup();
  });

  it("holds at most max-open-connections idle connections, closes them once idle, and serves all along", async () => {
    const before = height();
    const flood = await idleConnections(addr.grpc, 300);
    try {
      // Those past the cap are closed as they arrive: the node holds the cap, not the flood.
      expect(await until(() => flood.open() <= LIMITS.maxOpenConnections, 10_000)).toBe(true);
      expect(flood.open()).toBeGreaterThan(0);
      expect(await restAndRpcAnswer()).toEqual([200, 200]);
      // max-connection-idle closes the rest; then gRPC serves a new client.
      expect(await until(() => flood.open() === 0, 30_000)).toBe(true);
      expect(await balance()).toBe("5000");
      await node.waitFor(new RegExp(`committed block .*height=${before + 5} `));
    } finally {
      flood.closeAll();
    }
  });

  it("ends a call whose request is still short past read-timeout with DEADLINE_EXCEEDED naming it", async () => {
    const [ending] = await unfinishedMessages(addr.grpc, {
      connections: 1,
      streams: 1,
      messageBytes: 1000,
      path: "/cosmos.bank.v1beta1.Query/Balance",
      timeoutMs: 30_000,
    });
    expect(ending).toMatchObject({
      grpcStatus: grpc.status.DEADLINE_EXCEEDED,
      grpcMessage: `the request did not arrive within ${LIMITS.readTimeout} s (read-timeout in app.toml [grpc])`,
    });
  });

  it("ends calls whose unfinished messages pass the buffer limits, holding its memory, while blocks commit", async () => {
    const pid = node.proc.pid!;
    const rssBefore = rss(pid);
    let peak = rssBefore;
    const sampler = setInterval(() => {
      peak = Math.max(peak, rss(pid));
    }, 50);
    const before = height();
    // 4 connections x 50 streams x 1 MiB: 200 MiB the old server held, without end.
    const flooding = unfinishedMessages(addr.grpc, {
      connections: 4,
      streams: 50,
      messageBytes: LIMITS.maxRecvMsgSize,
      path: "/cosmos.bank.v1beta1.Query/AllBalances",
      timeoutMs: 30_000,
    });
    const during = await restAndRpcAnswer();
    const endings = await flooding;
    clearInterval(sampler);
    const after = height();
    const grew = peak - rssBefore;
    const byMessage = new Map<string, number>();
    for (const e of endings) {
      const key = e ? `${e.grpcStatus} ${e.grpcMessage}` : "still open";
      byMessage.set(key, (byMessage.get(key) ?? 0) + 1);
    }
    reportSoakFigures("grpc-stream-flood", {
      unfinishedMiB: 200,
      peakRssGrowthMiB: Math.round(grew / MiB),
      blocksDuringFlood: after - before,
      longestBlockGapMs: node.longestCommitGapMs(before),
      callsEnded: endings.filter((e) => e !== undefined).length,
    });

    expect(during).toEqual([200, 200]);
    expect(endings.filter((e) => e === undefined)).toHaveLength(0);
    // Every call ended with a status naming the limit it passed: the per-connection buffer, the node's, or
    // the read timeout for those left short of both.
    for (const e of endings)
      expect(`${e?.grpcStatus} ${e?.grpcMessage}`).toMatch(
        /^(8 .*\(max-recv-buffer(-per-connection)? in app\.toml \[grpc\]\)|4 .*\(read-timeout in app\.toml \[grpc\]\))$/,
      );
    expect([...byMessage.keys()].some((k) => k.includes("max-recv-buffer-per-connection"))).toBe(true);
    // The node held a few times the limits, not the flood's 200 MiB (generous: RSS counts garbage not yet
    // collected and the allocator's own slack).
    expect(grew).toBeLessThan(100 * MiB);
    expect(after).toBeGreaterThan(before);
    expect(await balance()).toBe("5000");
  });
});
