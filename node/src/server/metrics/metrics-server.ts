import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { parseListenAddress } from "../listen-address.js";
import type { NodeServerFactory } from "../node-server.js";
import { metricsOf } from "./node-metrics.js";

/** Prometheus text on `/metrics` of app.toml's `telemetry.address` when `telemetry.enabled` is on. */
export const startMetricsServer: NodeServerFactory = async (node, deps) => {
  const metrics = metricsOf(node);
  if (!metrics) return null;
  const logger = deps.logger.child("telemetry");
  const { host, port } = parseListenAddress(node.appConfig.telemetry.address, "app.toml telemetry.address");
  const server = createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? "/", "http://metrics").pathname;
    if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are on GET /metrics\n");
      return;
    }
    metrics.text().then(
      (text) => res.writeHead(200, { "content-type": metrics.registry.contentType }).end(text),
      (e: unknown) => {
        logger.error("metrics collection failed", { err: e instanceof Error ? e.message : String(e) });
        res.writeHead(500, { "content-type": "text/plain" }).end("metrics collection failed\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const a = server.address() as AddressInfo;
  const address = `http://${a.family === "IPv6" ? `[${a.address}]` : a.address}:${a.port}`;
  return {
    name: "telemetry",
    address,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
