import { create, type DescMessage, fromBinary, type MessageShape, toBinary } from "@bufbuild/protobuf";
import {
  GetLatestBlockRequestSchema,
  GetLatestBlockResponseSchema,
  GetNodeInfoRequestSchema,
  GetNodeInfoResponseSchema,
} from "@chaind/proto/sdk/base/tendermint/v1beta1/query_pb";
import {
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import * as grpc from "@grpc/grpc-js";
import { VisorError } from "../errors/visor-error.js";
import {
  type AnsweringNode,
  NODE_QUERY_MAX_BYTES,
  NODE_QUERY_TIMEOUT_MS,
  type NodeQuery,
} from "./node-query.js";
import type { UpgradePlan } from "./upgrade-info.js";

/** The node's gRPC server (cosmovisor's DAEMON_GRPC_ADDRESS), on the `cosmos.` services. */
export class GrpcNodeQuery implements NodeQuery {
  readonly label: string;
  private client: grpc.Client | null = null;

  constructor(private readonly address: string) {
    this.address = address.replace(/^(tcp|grpc|http):\/\//, "");
    this.label = `gRPC ${this.address}`;
  }

  private unary<O extends DescMessage>(path: string, request: Uint8Array, out: O): Promise<MessageShape<O>> {
    this.client ??= new grpc.Client(this.address, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": NODE_QUERY_MAX_BYTES,
    });
    const raw = (b: Buffer) => b;
    return new Promise((resolve, reject) => {
      this.client!.makeUnaryRequest(
        path,
        raw,
        raw,
        Buffer.from(request),
        { deadline: Date.now() + NODE_QUERY_TIMEOUT_MS },
        (err, value) => {
          if (err || !value)
            reject(new VisorError("NODE_API", `${this.label} ${path}: ${err?.details || err?.message}`));
          else {
            try {
              resolve(fromBinary(out, value));
            } catch (e) {
              reject(
                new VisorError("NODE_API", `${this.label} ${path}: bad answer: ${(e as Error).message}`),
              );
            }
          }
        },
      );
    });
  }

  async nodeInfo(): Promise<AnsweringNode> {
    const r = await this.unary(
      "/cosmos.base.tendermint.v1beta1.Service/GetNodeInfo",
      toBinary(GetNodeInfoRequestSchema, create(GetNodeInfoRequestSchema)),
      GetNodeInfoResponseSchema,
    );
    const info = r.defaultNodeInfo;
    if (!info?.defaultNodeId) throw new VisorError("NODE_API", `${this.label}: no node id in GetNodeInfo`);
    return { chainId: info.network, nodeId: info.defaultNodeId };
  }

  async height(): Promise<number> {
    const r = await this.unary(
      "/cosmos.base.tendermint.v1beta1.Service/GetLatestBlock",
      toBinary(GetLatestBlockRequestSchema, create(GetLatestBlockRequestSchema)),
      GetLatestBlockResponseSchema,
    );
    const h = r.sdkBlock?.header?.height ?? r.block?.header?.height;
    if (h === undefined) throw new VisorError("NODE_API", `${this.label}: no height in the latest block`);
    return Number(h);
  }

  async currentPlan(): Promise<UpgradePlan | null> {
    const r = await this.unary(
      "/cosmos.upgrade.v1beta1.Query/CurrentPlan",
      toBinary(QueryCurrentPlanRequestSchema, create(QueryCurrentPlanRequestSchema)),
      QueryCurrentPlanResponseSchema,
    );
    return r.plan ? { name: r.plan.name, height: Number(r.plan.height), info: r.plan.info } : null;
  }

  close(): void {
    this.client?.close();
    this.client = null;
  }
}
