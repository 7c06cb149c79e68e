import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
} from "../../node/src/gen/sdk/upgrade/v1beta1/query_pb.js";
import type { UpgradePlan } from "./upgrade-info.js";
import { VisorError } from "./visor-error.js";

/**
 * What visor asks a running node, over its CometBFT JSON-RPC (every Cosmos node has one): the latest height,
 * and the scheduled plan through `abci_query` on `/cosmos.upgrade.v1beta1.Query/CurrentPlan`.
 */
export class NodeApi {
  constructor(private readonly rpcAddress: string) {}

  private async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    const url = this.rpcAddress.replace(/^tcp:\/\//, "http://");
    let body: { result?: T; error?: { message: string } };
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        signal: AbortSignal.timeout(5_000),
      });
      body = (await res.json()) as typeof body;
    } catch (e) {
      throw new VisorError("NODE_API", `node RPC ${url} unreachable: ${(e as Error).message}`);
    }
    if (body.error || body.result === undefined)
      throw new VisorError("NODE_API", `${method}: ${body.error?.message ?? "no result"}`);
    return body.result;
  }

  async height(): Promise<number> {
    const r = await this.call<{ sync_info: { latest_block_height: string } }>("status", {});
    return Number(r.sync_info.latest_block_height);
  }

  async currentPlan(): Promise<UpgradePlan | null> {
    const data = Buffer.from(
      toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema)),
    ).toString("hex");
    const r = await this.call<{ response: { code: number; log: string; value: string | null } }>(
      "abci_query",
      {
        path: "/cosmos.upgrade.v1beta1.Query/CurrentPlan",
        data,
      },
    );
    if (r.response.code !== 0) throw new VisorError("NODE_API", `CurrentPlan: ${r.response.log}`);
    const plan = fromBinary(
      QueryCurrentPlanResponseSchema,
      Buffer.from(r.response.value ?? "", "base64"),
    ).plan;
    return plan ? { name: plan.name, height: Number(plan.height), info: plan.info } : null;
  }
}
