import { startMetricsListener } from "@chaind/core/metrics-listener";
import type { NodeServerFactory } from "../node-server.js";
import { metricsOf } from "./node-metrics.js";

/** Prometheus text on `/metrics` of app.toml's `telemetry.address` when `telemetry.enabled` is on. */
export const startMetricsServer: NodeServerFactory = async (node, deps) => {
  const metrics = metricsOf(node);
  if (!metrics) return null;
  const listener = await startMetricsListener(
    node.appConfig.telemetry.address,
    "app.toml telemetry.address",
    { name: "telemetry", source: { contentType: metrics.registry.contentType, text: () => metrics.text() } },
    { logger: deps.logger.child("telemetry") },
  );
  return { name: "telemetry", address: listener.address, close: () => listener.close() };
};
