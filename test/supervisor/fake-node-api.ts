import { existsSync, readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { QueryCurrentPlanResponseSchema } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import type { HomeIdentity } from "./visor-home.js";

export interface FakePlan {
  name: string;
  height: number;
  info: string;
}

/**
 * A server on loopback that answers what visor asks a node, on the CometBFT JSON-RPC (`status`, `abci_query`
 * on CurrentPlan at POST /) and on the REST paths (node_info, latest block, current_plan). It is a stand-in on
 * purpose: it plays either the home's node (the fake daemon has no API of its own) or a server that is *not*
 * the node (another local user's, on a port the node's config names), answering whatever identity, height and
 * plan the test sets. It counts every request, so a test can prove visor never asked it.
 */
export class FakeNodeApi {
  requests = 0;
  /** Who it claims to be. */
  identity: HomeIdentity;
  /** The height it claims; by default the fake daemon's own (data/height of `home`). */
  height: () => number;
  plan: FakePlan | null = null;
  /** While set, every answer waits for it: a test holds visor's request in flight to act meanwhile. */
  hold: Promise<void> | null = null;

  private constructor(
    private readonly server: Server,
    identity: HomeIdentity,
    home: string,
  ) {
    this.identity = identity;
    this.height = () => {
      const file = join(home, "data", "height");
      return existsSync(file) ? Number(readFileSync(file, "utf8")) : 0;
    };
  }

  static async start(opts: { home: string; identity: HomeIdentity; port?: number }): Promise<FakeNodeApi> {
    let self: FakeNodeApi | undefined;
    const server = createServer((req, res) => self!.handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, "127.0.0.1", () => resolve());
    });
    self = new FakeNodeApi(server, { ...opts.identity }, opts.home);
    return self;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  private planBytes(): string {
    const p = this.plan;
    const msg = create(QueryCurrentPlanResponseSchema, p ? { plan: { ...p, height: BigInt(p.height) } } : {});
    return Buffer.from(toBinary(QueryCurrentPlanResponseSchema, msg)).toString("base64");
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.requests++;
    if (this.hold) void this.hold.then(() => this.answer(req, res));
    else this.answer(req, res);
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    const nodeInfo = { id: this.identity.nodeId, network: this.identity.chainId };
    if (req.method === "GET") {
      const path = (req.url ?? "").split("?")[0];
      if (path === "/cosmos/base/tendermint/v1beta1/node_info")
        json(200, { default_node_info: { default_node_id: nodeInfo.id, network: nodeInfo.network } });
      else if (path === "/cosmos/base/tendermint/v1beta1/blocks/latest")
        json(200, { block: { header: { height: String(this.height()) } } });
      else if (path === "/cosmos/upgrade/v1beta1/current_plan")
        json(200, { plan: this.plan ? { ...this.plan, height: String(this.plan.height) } : null });
      else json(404, { code: 5, message: "not found", details: [] });
      return;
    }
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const { method, id } = JSON.parse(body) as { method: string; id: number };
      const result =
        method === "status"
          ? { node_info: nodeInfo, sync_info: { latest_block_height: String(this.height()) } }
          : { response: { code: 0, log: "", value: this.planBytes(), height: String(this.height()) } };
      json(200, { jsonrpc: "2.0", id, result });
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
