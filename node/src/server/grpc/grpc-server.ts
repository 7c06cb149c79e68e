import { type DescService, toBinary } from "@bufbuild/protobuf";
import { parseListenAddress } from "@chaind/core/listen-address";
import type { Logger } from "@chaind/core/logger";
import { file_grpc_reflection_v1_reflection } from "@chaind/proto/grpc/reflection/v1/reflection_pb";
import {
  Metadata,
  type MethodDefinition,
  Server,
  type ServerUnaryCall,
  type ServiceDefinition,
  type status as Status,
  type sendUnaryData,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { toNamespace } from "../../app/namespace.js";
import { toChainError } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";
import { metricsOf, type NodeMetrics } from "../metrics/node-metrics.js";
import type { NodeServerFactory } from "../node-server.js";
import type { QueryBackend } from "../rest/rest-gateway.js";
import { queryBackend } from "../rest/rest-server.js";
import { asHeightError, BLOCK_HEIGHT_HEADERS, queryHeight } from "./block-height-header.js";
import { DescriptorIndex } from "./descriptor-index.js";
import { GrpcListener, type GrpcListenerOptions } from "./grpc-listener.js";
import { type GrpcRequestLimits, limitGrpcRequests } from "./grpc-request-limits.js";
import { REFLECTION_SERVICES, reflectionDefinition, reflectionHandler } from "./server-reflection.js";

const raw = (b: Buffer) => b;

/** A unary method that passes protobuf bytes straight to the query router. */
function rawServiceDefinition(service: DescService, name: string): ServiceDefinition {
  const def: Record<string, MethodDefinition<Buffer, Buffer>> = {};
  for (const m of service.methods) {
    if (m.methodKind !== "unary") continue;
    def[m.name] = {
      path: `/${name}/${m.name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    };
  }
  return def as ServiceDefinition;
}

function metadataHeight(md: Metadata): { name: string; value: string } | undefined {
  for (const name of BLOCK_HEIGHT_HEADERS) {
    const v = md.get(name)[0];
    if (v !== undefined) return { name, value: typeof v === "string" ? v : v.toString("utf8") };
  }
  return undefined;
}

function unaryHandler(
  path: string,
  deps: { backend: QueryBackend; logger: Logger; metrics: NodeMetrics | null },
) {
  const { backend, logger, metrics } = deps;
  return (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
    const started = performance.now();
    const bounds = backend.heights;
    let height = 0;
    const run = async () => {
      const given = metadataHeight(call.metadata);
      height = queryHeight(given?.value, bounds, given?.name);
      try {
        return await backend.query(path, call.request, height);
      } catch (e) {
        throw asHeightError(e, height, bounds);
      }
    };
    run().then(
      (answer) => {
        const md = new Metadata();
        for (const key of BLOCK_HEIGHT_HEADERS) md.set(key, String(answer.height));
        call.sendMetadata(md);
        metrics?.observeQuery("grpc", path, GrpcCode.OK, (performance.now() - started) / 1000);
        const bytes = "value" in answer ? answer.value : toBinary(answer.output, answer.message);
        callback(null, Buffer.from(bytes));
      },
      (e: unknown) => {
        const err = toChainError(e);
        if (err.grpcCode === GrpcCode.INTERNAL || err.grpcCode === GrpcCode.UNKNOWN)
          logger.error("gRPC query failed", { path, err: err.message });
        metrics?.observeQuery("grpc", path, err.grpcCode, (performance.now() - started) / 1000);
        callback({
          code: err.grpcCode as number as Status,
          details: err.message,
          name: "ChainError",
          message: err.message,
        });
      },
    );
  };
}

export interface GrpcServerOptions extends GrpcListenerOptions, GrpcRequestLimits {
  maxRecvMsgSize: number;
  maxSendMsgSize: number;
  /** Calls one connection may have open at once. */
  maxConcurrentStreams: number;
  /** A connection with no call open this long is closed; 0: never. */
  maxConnectionIdleMs: number;
}

/**
 * gRPC on every registered query service (module queries, tx.v1beta1.Service, base.tendermint.v1beta1.Service)
 * under its `sdk.` name and its `cosmos.` name, plus server reflection.
 */
export async function startGrpc(
  opts: GrpcServerOptions,
  services: readonly DescService[],
  deps: { backend: QueryBackend; logger: Logger; metrics: NodeMetrics | null },
): Promise<{ address: string; close(): Promise<void>; serviceNames: string[] }> {
  const server = new Server({
    "grpc.max_receive_message_length": opts.maxRecvMsgSize,
    "grpc.max_send_message_length": opts.maxSendMsgSize,
    "grpc.max_concurrent_streams": opts.maxConcurrentStreams,
    ...(opts.maxConnectionIdleMs > 0 ? { "grpc.max_connection_idle_ms": opts.maxConnectionIdleMs } : {}),
  });
  const names: string[] = [];
  for (const service of services) {
    for (const name of new Set([service.typeName, toNamespace(service.typeName, "cosmos")])) {
      const impl: UntypedServiceImplementation = {};
      for (const m of service.methods)
        if (m.methodKind === "unary") impl[m.name] = unaryHandler(`/${name}/${m.name}`, deps);
      server.addService(rawServiceDefinition(service, name), impl);
      names.push(name);
    }
  }
  // Built at the first reflection request: indexing every descriptor costs start-up tens of milliseconds.
  let index: DescriptorIndex | undefined;
  const indexed = () =>
    (index ??= DescriptorIndex.of(
      [...services.map((s) => s.file), file_grpc_reflection_v1_reflection],
      deps.backend.registry,
    ));
  const listed = [...names, ...REFLECTION_SERVICES].sort();
  for (const name of REFLECTION_SERVICES)
    server.addService(reflectionDefinition(name), {
      ServerReflectionInfo: reflectionHandler(indexed, () => listed),
    });
  const listener = await GrpcListener.start(server, opts, {
    watch: (h2) => limitGrpcRequests(h2, opts),
    logger: deps.logger,
  });
  return {
    address: listener.address,
    serviceNames: listed,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close();
        const t = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, 2000);
        server.tryShutdown(() => {
          clearTimeout(t);
          resolve();
        });
      }),
  };
}

/** The gRPC listener on app.toml's `grpc.address` when `grpc.enable` is on. */
export const startGrpcServer: NodeServerFactory = async (node, deps) => {
  const g = node.appConfig.grpc;
  if (!g.enable) return null;
  const { host, port } = parseListenAddress(g.address, "app.toml grpc.address");
  const server = await startGrpc(
    {
      host,
      port,
      maxRecvMsgSize: g.maxRecvMsgSize,
      maxSendMsgSize: g.maxSendMsgSize,
      maxConnections: g.maxOpenConnections,
      maxConcurrentStreams: g.maxConcurrentStreams,
      maxConnectionIdleMs: g.maxConnectionIdle * 1000,
      readTimeoutMs: g.readTimeout * 1000,
      maxPendingBytesPerConnection: g.maxRecvBufferPerConnection,
      maxPendingBytes: g.maxRecvBuffer,
    },
    node.app.registrar.queryServices,
    { backend: queryBackend(node), logger: deps.logger.child("grpc"), metrics: metricsOf(node) },
  );
  return { name: "grpc", address: server.address, close: () => server.close() };
};
