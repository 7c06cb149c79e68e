import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
} from "../../node/src/gen/sdk/upgrade/v1beta1/query_pb.js";
import { NODE_QUERY_TIMEOUT_MS, type NodeQuery } from "./node-query.js";
import type { UpgradePlan } from "./upgrade-info.js";
import { VisorError } from "./visor-error.js";

/** The node's CometBFT JSON-RPC: `status` for the height, `abci_query` on CurrentPlan for the plan. */
export class RpcNodeQuery implements NodeQuery {
  readonly label: string;
  private readonly url: string;

  constructor(address: string) {
    this.url = address.replace(/^tcp:\/\//, "http://");
    this.label = `RPC ${this.url}`;
  }

  private async call<T>(method: string, params: Record<string, unknown>): Promise<T> {
    let body: { result?: T; error?: { message: string } };
    try {
      const res = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
        signal: AbortSignal.timeout(NODE_QUERY_TIMEOUT_MS),
      });
      body = (await res.json()) as typeof body;
    } catch (e) {
      throw new VisorError("NODE_API", `${this.label} unreachable: ${(e as Error).message}`);
    }
    if (body.error || body.result === undefined)
      throw new VisorError("NODE_API", `${this.label} ${method}: ${body.error?.message ?? "no result"}`);
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
      { path: "/cosmos.upgrade.v1beta1.Query/CurrentPlan", data },
    );
    if (r.response.code !== 0)
      throw new VisorError("NODE_API", `${this.label} CurrentPlan: ${r.response.log}`);
    const plan = fromBinary(
      QueryCurrentPlanResponseSchema,
      Buffer.from(r.response.value ?? "", "base64"),
    ).plan;
    return plan ? { name: plan.name, height: Number(plan.height), info: plan.info } : null;
  }
}
