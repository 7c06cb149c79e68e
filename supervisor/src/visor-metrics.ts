import { createServer, type Server } from "node:http";
import { Counter, Gauge, Registry } from "prom-client";

/** visor's Prometheus metrics, declared in one place. */
export class VisorMetrics {
  readonly registry = new Registry();
  readonly upgrades = new Counter({
    name: "visor_upgrades_total",
    help: "Upgrades attempted, by result",
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

  /** Serves /metrics on `address` (host:port). */
  async listen(address: string): Promise<Server> {
    const m = /^(.*):(\d+)$/.exec(address.replace(/^tcp:\/\//, ""));
    if (!m) throw new Error(`VISOR_METRICS_ADDRESS: expected host:port, got ${JSON.stringify(address)}`);
    const server = createServer(async (req, res) => {
      if (req.url !== "/metrics") {
        res.writeHead(404).end("not found\n");
        return;
      }
      res.writeHead(200, { "content-type": this.registry.contentType }).end(await this.registry.metrics());
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(Number(m[2]), m[1] || "127.0.0.1", () => resolve());
    });
    return server;
  }
}
