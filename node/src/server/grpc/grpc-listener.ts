import type { Http2Server } from "node:http2";
import { type AddressInfo, createServer, type Server as NetServer } from "node:net";
import type { Logger } from "@chaind/core/logger";
import { type Server, ServerCredentials } from "@grpc/grpc-js";

export interface GrpcListenerOptions {
  host: string;
  port: number;
  /** Connections served at once; more are closed as they arrive. 0: no limit. */
  maxConnections: number;
}

/**
 * gRPC's TCP listener, our own, in front of grpc-js: each connection reaches grpc-js through its connection
 * injector. grpc-js has no cap on connections, and hands out none of its HTTP/2 streams, which the request
 * limits must watch: `watch` gets the HTTP/2 server behind the injector before the first connection arrives.
 */
export class GrpcListener {
  private constructor(
    private readonly tcp: NetServer,
    /** `host:port` as configured (the host bracketed when it is IPv6), with the port it got. */
    readonly address: string,
  ) {}

  static async start(
    server: Server,
    opts: GrpcListenerOptions,
    deps: { watch: (h2: Http2Server) => void; logger: Logger },
  ): Promise<GrpcListener> {
    const servers = http2ServersOf(server);
    const before = new Set(servers.keys());
    const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
    const made = [...servers.keys()].filter((s) => !before.has(s));
    if (made.length !== 1)
      throw new Error("gRPC: cannot find the HTTP/2 server of grpc-js's connection injector");
    deps.watch(made[0]);
    const tcp = createServer((socket) => injector.injectConnection(socket));
    if (opts.maxConnections > 0) tcp.maxConnections = opts.maxConnections;
    await new Promise<void>((resolve, reject) => {
      tcp.once("error", reject);
      tcp.listen(opts.port, opts.host, () => {
        tcp.off("error", reject);
        resolve();
      });
    }).catch((e: Error) => {
      injector.destroy();
      throw new Error(`gRPC cannot listen on ${opts.host}:${opts.port}: ${e.message}`);
    });
    // A failed accept (EMFILE when the process is out of file descriptors) costs that one client its
    // connection; unheard, it would end the node.
    tcp.on("error", (e) => deps.logger.debug("gRPC could not accept a connection", { err: e.message }));
    const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
    return new GrpcListener(tcp, `${host}:${(tcp.address() as AddressInfo).port}`);
  }

  /** Stops accepting; the connections are grpc-js's to close (Server.tryShutdown, forceShutdown). */
  close(): void {
    this.tcp.close();
  }
}

/**
 * grpc-js's map of its HTTP/2 servers (a private field: grpc-js offers no other way to them), checked, so a
 * grpc-js that no longer has it stops the node at start rather than serving gRPC without its limits.
 */
function http2ServersOf(server: Server): Map<Http2Server, unknown> {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map))
    throw new Error(
      "gRPC: this @grpc/grpc-js keeps no map of its HTTP/2 servers; its limits cannot be applied",
    );
  return servers as Map<Http2Server, unknown>;
}
