import { createServer } from "node:net";
import { freePort } from "@chaind/harness/free-listener-ports";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { declaredMetrics, grafanaDashboardMetrics } from "../grafana-dashboard.js";
import { fakeBinary, visorHome } from "./visor-home.js";

describe("visor metrics (VISOR_METRICS_ADDRESS)", () => {
  let h: ReturnType<typeof visorHome>;
  beforeEach(() => {
    h = visorHome();
  });
  afterEach(() => h.cleanup());

  it("serves Prometheus text on GET /metrics while the daemon runs, 404 elsewhere, and stops with visor", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const port = await freePort();
    const v = h.start(["start"], { VISOR_METRICS_ADDRESS: `127.0.0.1:${port}` });
    await v.waitFor(/v1 height 2/);
    const url = `http://127.0.0.1:${port}`;
    const scrape = await fetch(`${url}/metrics?from=prometheus`);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await scrape.text();
    expect(text).toMatch(/^visor_child_starts_total 1$/m);
    expect(text).toContain("# TYPE visor_upgrades_total counter");
    // Every visor metric the Grafana dashboard in docs/grafana queries is one visor serves.
    const dashboard = grafanaDashboardMetrics().filter((n) => n.startsWith("visor_"));
    const declared = declaredMetrics(text);
    expect(dashboard.filter((n) => !declared.has(n))).toEqual([]);
    expect(dashboard.length).toBeGreaterThan(5);
    expect((await fetch(`${url}/other`)).status).toBe(404);
    expect((await fetch(`${url}/metrics`, { method: "POST", body: "x" })).status).toBe(404);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    await expect(fetch(`${url}/metrics`)).rejects.toThrow();
  });

  it("refuses an address it cannot parse or bind, with one line naming the setting", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const bad = await h.visor(["run", "start"], { VISOR_METRICS_ADDRESS: "nonsense" });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.trim().split("\n")).toEqual([
      'Error: VISOR_METRICS_ADDRESS: cannot parse listen address "nonsense"; expected tcp://host:port',
    ]);
    const taken = createServer();
    await new Promise<void>((r) => taken.listen(0, "127.0.0.1", r));
    const { port } = taken.address() as { port: number };
    try {
      const busy = await h.visor(["run", "start"], { VISOR_METRICS_ADDRESS: `127.0.0.1:${port}` });
      expect(busy.exitCode).not.toBe(0);
      expect(busy.stderr.trim()).toMatch(
        new RegExp(`^Error: VISOR_METRICS_ADDRESS 127.0.0.1:${port}: listen EADDRINUSE`),
      );
    } finally {
      taken.close();
    }
  });
});
