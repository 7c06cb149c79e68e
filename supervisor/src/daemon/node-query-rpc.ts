import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { VisorError } from "../errors/visor-error.js";
import {
  type AnsweringNode,
  NODE_QUERY_MAX_BYTES,
  NODE_QUERY_TIMEOUT_MS,
  type NodeQuery,
} from "./node-query.js";
import type { UpgradePlan } from "./upgrade-info.js";

/**
 * The node's CometBFT JSON-RPC: `status` for who answers (`node_info.id`, `node_info.network`) and the height,
 * `abci_query` on CurrentPlan for the plan.
 */
export class RpcNodeQuery implements NodeQuery {
  readonly label: string;
  private readonly client: NodeRpcClient;

  constructor(address: string) {
    this.client = new NodeRpcClient(address, {
      timeoutMs: NODE_QUERY_TIMEOUT_MS,
      maxAnswerBytes: NODE_QUERY_MAX_BYTES,
    });
    this.label = `RPC ${this.client.url}`;
  }

  /** The client's failures as visor's, named by the transport. */
  private async ask<T>(what: () => Promise<T>): Promise<T> {
    try {
      return await what();
    } catch (e) {
      throw new VisorError("NODE_API", `${this.label}: ${(e as Error).message}`);
    }
  }

  async nodeInfo(): Promise<AnsweringNode> {
    const status = await this.ask(() => this.client.status());
    const info = status?.node_info as { id?: unknown; network?: unknown } | undefined;
    if (typeof info?.id !== "string" || !info.id || typeof info.network !== "string")
      throw new VisorError("NODE_API", `${this.label}: no node id and network in status`);
    return { chainId: info.network, nodeId: info.id };
  }

  async height(): Promise<number> {
    const status = await this.ask(() => this.client.status());
    const h = Number(status?.sync_info?.latest_block_height);
    if (!Number.isSafeInteger(h)) throw new VisorError("NODE_API", `${this.label}: no height in status`);
    return h;
  }

  async currentPlan(): Promise<UpgradePlan | null> {
    const request = toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema));
    const { value } = await this.ask(() =>
      this.client.query("/cosmos.upgrade.v1beta1.Query/CurrentPlan", request),
    );
    const plan = fromBinary(QueryCurrentPlanResponseSchema, value).plan;
    return plan ? { name: plan.name, height: Number(plan.height), info: plan.info } : null;
  }
}
