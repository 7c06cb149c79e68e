import { HttpListener, type HttpListenerLogger } from "./http-listener.js";
import { parseListenAddress } from "./listen-address.js";

/** Where the text of a scrape comes from (a prom-client registry, or anything shaped like one). */
export interface MetricsSource {
  contentType: string;
  text(): Promise<string>;
}

// A scrape is small and quick; a client holding a connection longer than this is not Prometheus.
const SCRAPE_TIMEOUT_MS = 10_000;
/** Scrapers served at once; Prometheus needs one. */
export const MAX_SCRAPERS = 32;

/** Prometheus text on `GET /metrics` at `address`; `setting` names where the address came from in errors. */
export async function startMetricsListener(
  address: string,
  setting: string,
  opts: { name: string; source: MetricsSource },
  deps: { logger: HttpListenerLogger },
): Promise<HttpListener> {
  const { host, port } = parseListenAddress(address, setting);
  return HttpListener.start(
    {
      host,
      port,
      name: opts.name,
      readTimeoutMs: SCRAPE_TIMEOUT_MS,
      writeTimeoutMs: SCRAPE_TIMEOUT_MS,
      maxConnections: MAX_SCRAPERS,
    },
    async (req, res) => {
      req.resume();
      const path = new URL(req.url ?? "/", "http://metrics").pathname;
      if (path !== "/metrics" || (req.method !== "GET" && req.method !== "HEAD")) {
        res.writeHead(404, { "content-type": "text/plain" }).end("not found: metrics are on GET /metrics\n");
        return;
      }
      let text: string;
      try {
        text = await opts.source.text();
      } catch (e) {
        deps.logger.error("metrics collection failed", { err: e instanceof Error ? e.message : String(e) });
        res.writeHead(500, { "content-type": "text/plain" }).end("metrics collection failed\n");
        return;
      }
      res.writeHead(200, { "content-type": opts.source.contentType }).end(text);
    },
    deps,
  );
}
