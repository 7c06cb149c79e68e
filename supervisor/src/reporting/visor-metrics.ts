import type { HttpListener } from "@chaind/core/http-listener";
import type { Logger } from "@chaind/core/logger";
import { startMetricsListener } from "@chaind/core/metrics-listener";
import { Counter, Gauge, Registry } from "prom-client";
import { VisorError } from "../errors/visor-error.js";

const SETTING = "VISOR_METRICS_ADDRESS";

/** visor's Prometheus metrics, declared in one place. */
export class VisorMetrics {
  readonly registry = new Registry();
  readonly upgrades = new Counter({
    name: "visor_upgrades_total",
    help: "Upgrades attempted, by result (ok, failed, rolled_back)",
    labelNames: ["result"],
    registers: [this.registry],
  });
  readonly upgradeSeconds = new Gauge({
    name: "visor_last_upgrade_seconds",
    help: "Time the last upgrade took, halt to switch",
    registers: [this.registry],
  });
  readonly childStarts = new Counter({
    name: "visor_child_starts_total",
    help: "Times the daemon was started",
    registers: [this.registry],
  });
  readonly downloadedBytes = new Gauge({
    name: "visor_download_bytes",
    help: "Bytes received by the current or last download",
    registers: [this.registry],
  });
  readonly prefetched = new Counter({
    name: "visor_prefetches_total",
    help: "Binaries fetched ahead of their upgrade height",
    registers: [this.registry],
  });
  readonly nextUpgradeHeight = new Gauge({
    name: "visor_next_upgrade_height",
    help: "Height of the next upgrade visor knows of (from the node's plan or the batch file)",
    labelNames: ["plan", "source"],
    registers: [this.registry],
  });
  readonly nextUpgradeReady = new Gauge({
    name: "visor_next_upgrade_ready",
    help: "1 when the last check found everything the next upgrade's halt needs, 0 when it will fail",
    labelNames: ["plan", "source"],
    registers: [this.registry],
  });
  readonly nextUpgradeEstimatedTime = new Gauge({
    name: "visor_next_upgrade_estimated_time_seconds",
    help: "When the node should reach the next upgrade's height (Unix time), at the pace of its blocks",
    labelNames: ["plan", "source"],
    registers: [this.registry],
  });

  readonly rehearsalPassed = new Gauge({
    name: "visor_rehearsal_passed",
    help: "1 when the last rehearsal of a plan (visor rehearse on VISOR_REHEARSE_BEFORE's schedule) passed, 0 when it failed",
    labelNames: ["plan"],
    registers: [this.registry],
  });
  readonly rehearsalSeconds = new Gauge({
    name: "visor_last_rehearsal_seconds",
    help: "Time the last scheduled rehearsal took, copy to removal",
    registers: [this.registry],
  });

  /** Serves /metrics on `address` (host:port, tcp://host:port or [v6]:port). */
  async listen(address: string, deps: { logger: Logger }): Promise<HttpListener> {
    const source = { contentType: this.registry.contentType, text: () => this.registry.metrics() };
    try {
      return await startMetricsListener(address, SETTING, { name: "metrics", source }, deps);
    } catch (e) {
      const msg = (e as Error).message;
      throw new VisorError("CONFIG", msg.startsWith(SETTING) ? msg : `${SETTING} ${address}: ${msg}`);
    }
  }
}
