import { create, toBinary } from "@bufbuild/protobuf";
import { QueryCurrentPlanRequestSchema } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import * as grpc from "@grpc/grpc-js";

export type QueryKind = "rest" | "grpc" | "rpc";

export interface QueryOutcome {
  at: number;
  kind: QueryKind;
  ok: boolean;
  why?: string;
}

const raw = (b: Buffer) => b;

/**
 * Queries over REST, gRPC and RPC in parallel loops, each asking again as soon as it has an answer, recording
 * when each one succeeded or failed. A non-2xx status, a JSON-RPC error or a gRPC status is a failure.
 */
export class QueryLoad {
  readonly outcomes: QueryOutcome[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly grpcClient: grpc.Client;

  constructor(
    private readonly at: { rest: string; grpc: string; rpc: string },
    private readonly address: string,
    private readonly opts: { loopsPerKind: number; pauseMs: number } = { loopsPerKind: 2, pauseMs: 0 },
  ) {
    // A client that must follow a node through restarts reconnects quickly (grpc-js backs off up to 120 s).
    this.grpcClient = new grpc.Client(at.grpc, grpc.credentials.createInsecure(), {
      "grpc.initial_reconnect_backoff_ms": 100,
      "grpc.max_reconnect_backoff_ms": 500,
    });
  }

  start(): void {
    this.running = true;
    const kinds: QueryKind[] = ["rest", "grpc", "rpc"];
    for (const kind of kinds)
      for (let i = 0; i < this.opts.loopsPerKind; i++) this.loops.push(this.loop(kind));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    this.grpcClient.close();
  }

  private async loop(kind: QueryKind): Promise<void> {
    let n = 0;
    while (this.running) {
      n++;
      try {
        await this.ask(kind, n);
        this.outcomes.push({ at: performance.now(), kind, ok: true });
        if (this.opts.pauseMs) await new Promise((r) => setTimeout(r, this.opts.pauseMs));
      } catch (e) {
        this.outcomes.push({ at: performance.now(), kind, ok: false, why: (e as Error).message });
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  private async ask(kind: QueryKind, n: number): Promise<void> {
    const timeout = AbortSignal.timeout(5_000);
    if (kind === "rest") {
      const path =
        n % 2 ? "/cosmos/upgrade/v1beta1/current_plan" : `/cosmos/bank/v1beta1/balances/${this.address}`;
      const res = await fetch(this.at.rest + path, { signal: timeout });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`REST ${path}: HTTP ${res.status}`);
    } else if (kind === "rpc") {
      const method = n % 2 ? "status" : "abci_info";
      const res = await fetch(this.at.rpc, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: n, method, params: {} }),
        signal: timeout,
      });
      const body = (await res.json()) as { error?: { message: string } };
      if (body.error) throw new Error(`RPC ${method}: ${body.error.message}`);
    } else {
      const req = Buffer.from(toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema)));
      await new Promise<void>((resolve, reject) =>
        this.grpcClient.makeUnaryRequest(
          "/cosmos.upgrade.v1beta1.Query/CurrentPlan",
          raw,
          raw,
          req,
          { deadline: Date.now() + 5_000 },
          (err) => (err ? reject(new Error(`gRPC: ${err.details || err.message}`)) : resolve()),
        ),
      );
    }
  }
}
