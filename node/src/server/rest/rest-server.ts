import { parseListenAddress } from "@chaind/core/listen-address";
import type { NodeCore } from "../../chain/node-app.js";
import { metricsOf } from "../metrics/node-metrics.js";
import type { NodeServerFactory } from "../node-server.js";
import { swaggerMount, swaggerOffMount } from "../swagger/swagger-site.js";
import { type QueryBackend, RestGateway } from "./rest-gateway.js";
import { restRoutes } from "./rest-routes.js";

/** The node's query router and retained heights, as the gateways see them. */
export function queryBackend(node: NodeCore): QueryBackend {
  return {
    query: (path, request, height) =>
      request instanceof Uint8Array
        ? node.app.query(path, request, height)
        : node.app.queryMessage(path, request, height),
    heights: node.store,
    registry: node.app.types.registry,
  };
}

/**
 * The REST gateway on app.toml's `api.address` when `api.enable` is on. Routes come from the annotations of
 * whatever query services are registered when it starts; Swagger is mounted when `api.swagger` is on.
 */
export const startRestServer: NodeServerFactory = async (node, deps) => {
  const api = node.appConfig.api;
  if (!api.enable) return null;
  const { host, port } = parseListenAddress(api.address, "app.toml api.address");
  const logger = deps.logger.child("api");
  const routes = restRoutes(node.app.registrar.queryServices);
  if (api.enabledUnsafeCors)
    logger.warn(
      "CORS is on for every origin (api.enabled-unsafe-cors): for development only, never production",
    );
  const gateway = await RestGateway.start(
    {
      host,
      port,
      maxOpenConnections: api.maxOpenConnections,
      readTimeoutMs: api.rpcReadTimeout * 1000,
      writeTimeoutMs: api.rpcWriteTimeout * 1000,
      maxBodyBytes: api.rpcMaxBodyBytes,
      cors: api.enabledUnsafeCors,
    },
    routes,
    {
      backend: queryBackend(node),
      logger,
      metrics: metricsOf(node),
      mounts: [
        api.swagger
          ? await swaggerMount(
              routes,
              { title: `${node.app.opts.name} REST API`, version: node.app.opts.version },
              logger,
            )
          : swaggerOffMount,
      ],
    },
  );
  return { name: "api", address: gateway.address, close: () => gateway.close() };
};
