import { HttpListener } from "../http-listener.js";
import { parseListenAddress } from "../listen-address.js";
import type { NodeServerFactory } from "../node-server.js";
import { metricsOf } from "./node-metrics.js";

/** Prometheus text on `/metrics` of app.toml's `telemetry.address` when `telemetry.enabled` is on. */
export const startMetricsServer: NodeServerFactory = async (node, deps) => {
  const metrics = metricsOf(node);
  if (!metrics) return null;
  const logger = deps.logger.child("telemetry");
  const { host, port } = parseListenAddress(node.appConfig.telemetry.address, "app.toml telemetry.address");
  const listener = await HttpListener.start(
    { host, port, name: "telemetry" },
    async (req, res) => {
      req.resume();
      const path = new URL(req.url ?? "/", "http://metrics").pathname;
      if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are on GET /metrics\n");
        return;
      }
      let text: string;
      try {
        text = await metrics.text();
      } catch (e) {
        logger.error("metrics collection failed", { err: e instanceof Error ? e.message : String(e) });
        res.writeHead(500, { "content-type": "text/plain" }).end("metrics collection failed\n");
        return;
      }
      res.writeHead(200, { "content-type": metrics.registry.contentType }).end(text);
    },
    { logger },
  );
  return { name: "telemetry", address: listener.address, close: () => listener.close() };
};
