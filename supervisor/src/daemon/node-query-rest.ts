import { readLimitedResponse } from "@chaind/core/limited-response";
import { VisorError } from "../errors/visor-error.js";
import {
  type AnsweringNode,
  NODE_QUERY_MAX_BYTES,
  NODE_QUERY_TIMEOUT_MS,
  type NodeQuery,
} from "./node-query.js";
import type { UpgradePlan } from "./upgrade-info.js";

/** The node's REST gateway, on the `cosmos/...` paths every Cosmos SDK node serves. */
export class RestNodeQuery implements NodeQuery {
  readonly label: string;
  private readonly base: string;

  constructor(address: string) {
    this.base = address.replace(/^tcp:\/\//, "http://").replace(/\/+$/, "");
    this.label = `REST ${this.base}`;
  }

  private async get<T>(path: string, headers: Record<string, string> = {}): Promise<T> {
    return (await this.read<T>(path, headers)).body;
  }

  /** The answer and the height of the state it was read from, as Cosmos gateways report it in a header. */
  private async read<T>(
    path: string,
    headers: Record<string, string> = {},
  ): Promise<{ body: T; stateHeight: number | null }> {
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.base + path, { headers, signal: AbortSignal.timeout(NODE_QUERY_TIMEOUT_MS) });
      text = (await readLimitedResponse(res, NODE_QUERY_MAX_BYTES)).toString("utf8");
    } catch (e) {
      throw new VisorError("NODE_API", `${this.label} unreachable: ${(e as Error).message}`);
    }
    if (!res.ok)
      throw new VisorError("NODE_API", `${this.label}${path}: HTTP ${res.status} ${text.slice(0, 200)}`);
    const h = Number(
      res.headers.get("x-cosmos-block-height") ?? res.headers.get("grpc-metadata-x-cosmos-block-height"),
    );
    try {
      return { body: JSON.parse(text) as T, stateHeight: Number.isSafeInteger(h) && h > 0 ? h : null };
    } catch {
      throw new VisorError("NODE_API", `${this.label}${path}: the answer is not JSON`);
    }
  }

  async nodeInfo(): Promise<AnsweringNode> {
    const r = await this.get<{ default_node_info?: { default_node_id?: unknown; network?: unknown } }>(
      "/cosmos/base/tendermint/v1beta1/node_info",
    );
    const { default_node_id: nodeId, network } = r.default_node_info ?? {};
    if (typeof nodeId !== "string" || !nodeId || typeof network !== "string")
      throw new VisorError("NODE_API", `${this.label}: no node id and network in node_info`);
    return { chainId: network, nodeId };
  }

  async height(): Promise<number> {
    const r = await this.get<{ block?: { header?: { height?: string } } }>(
      "/cosmos/base/tendermint/v1beta1/blocks/latest",
    );
    const h = Number(r.block?.header?.height);
    if (!Number.isSafeInteger(h))
      throw new VisorError("NODE_API", `${this.label}: no height in the latest block`);
    return h;
  }

  async currentPlan(): Promise<UpgradePlan | null> {
    const r = await this.get<{ plan?: { name: string; height: string; info: string } | null }>(
      "/cosmos/upgrade/v1beta1/current_plan",
    );
    return r.plan ? { name: r.plan.name, height: Number(r.plan.height), info: r.plan.info ?? "" } : null;
  }

  /** Each module's consensus version, in the latest state or (`height`) the state after that block. */
  async moduleVersions(height?: number): Promise<Record<string, string>> {
    const r = await this.get<{ module_versions?: { name: string; version: string }[] }>(
      "/cosmos/upgrade/v1beta1/module_versions",
      height === undefined ? {} : { "x-cosmos-block-height": String(height) },
    );
    return Object.fromEntries((r.module_versions ?? []).map((m) => [m.name, String(m.version)]));
  }

  /**
   * The height plan `name` was applied at (0 while it is not), and the committed height of the state that says
   * so. Unlike the latest block, which a node may have stored before its application committed it, both move
   * only when a block is committed.
   */
  async appliedPlan(name: string): Promise<{ height: number; stateHeight: number | null }> {
    const r = await this.read<{ height?: string }>(
      `/cosmos/upgrade/v1beta1/applied_plan/${encodeURIComponent(name)}`,
    );
    return { height: Number(r.body.height ?? 0) || 0, stateHeight: r.stateHeight };
  }
}
