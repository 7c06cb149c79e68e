import { readFileSync } from "node:fs";
import type { Logger } from "@chaind/core/logger";
import { MAX_SCRAPERS } from "@chaind/core/metrics-listener";
import type { NodeCore } from "../chain/node-app.js";

/**
 * Descriptors kept for the node's own files whatever its listeners hold: LevelDB's log, manifest and the tables
 * it keeps open, the sign state it rewrites at every block, snapshots, threads and pipes. An idle node uses about
 * 30; the rest is room for LevelDB's table cache as the store grows.
 */
export const OWN_FILES_RESERVE = 256;

/** The process's open-file limit (RLIMIT_NOFILE, which Node raises to the hard limit); undefined off Linux. */
export function openFileLimit(): number | undefined {
  try {
    const m = readFileSync("/proc/self/limits", "utf8").match(/^Max open files\s+(\d+)\s/m);
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** One listener's connection cap: 0 is none. `cut` lowers it; a fixed cap has none. */
interface ConnectionCap {
  setting: string;
  value: number;
  cut?: (n: number) => void;
}

/**
 * Cuts the listeners' connection caps, in proportion, so that together they leave OWN_FILES_RESERVE of `limit`.
 * Every connection takes a descriptor: with caps summing past the limit, a flood of idle connections took the
 * node's last ones, and its next file (the sign state of the next block) failed with EMFILE and stopped it.
 * Returns what was cut, as `setting old -> new`, or nothing when the caps fit.
 */
export function fitConnectionCaps(caps: readonly ConnectionCap[], limit: number): string[] {
  // A cap of 0 (none) asks for every descriptor there is.
  const ask = (c: ConnectionCap) => (c.value > 0 ? Math.min(c.value, limit) : limit);
  const budget = limit - OWN_FILES_RESERVE;
  if (caps.reduce((n, c) => n + ask(c), 0) <= budget) return [];
  const fixed = caps.filter((c) => !c.cut).reduce((n, c) => n + ask(c), 0);
  const cuttable = caps.filter((c) => c.cut);
  const asked = cuttable.reduce((n, c) => n + ask(c), 0);
  const share = Math.max(budget - fixed, 0);
  return cuttable.map((c) => {
    const n = Math.max(1, Math.floor((share * ask(c)) / asked));
    c.cut?.(n);
    return `${c.setting} ${c.value || "0 (no limit)"} -> ${n}`;
  });
}

/**
 * Fits the caps of the listeners `chaind start` will run to the process's open-file limit (config.toml
 * `rpc.max_open_connections`, app.toml `api.max-open-connections` and `grpc.max-open-connections`; telemetry's
 * scrapers are fixed), editing the node's config before they start, and says so when it cuts them. CometBFT
 * only documents the rule (its `max_open_connections` "should be < ulimit -Sn - …").
 */
export function fitListenersToOpenFiles(node: NodeCore, logger: Logger, limit = openFileLimit()): void {
  if (limit === undefined) return;
  const { rpc } = node.nodeConfig;
  const { api, grpc, telemetry } = node.appConfig;
  const caps: ConnectionCap[] = [];
  if (rpc.laddr)
    caps.push({
      setting: "config.toml rpc.max_open_connections",
      value: rpc.maxOpenConnections,
      cut: (n) => {
        rpc.maxOpenConnections = n;
      },
    });
  if (api.enable)
    caps.push({
      setting: "app.toml api.max-open-connections",
      value: api.maxOpenConnections,
      cut: (n) => {
        api.maxOpenConnections = n;
      },
    });
  if (grpc.enable)
    caps.push({
      setting: "app.toml grpc.max-open-connections",
      value: grpc.maxOpenConnections,
      cut: (n) => {
        grpc.maxOpenConnections = n;
      },
    });
  if (telemetry.enabled) caps.push({ setting: "telemetry scrapers", value: MAX_SCRAPERS });
  const cuts = fitConnectionCaps(caps, limit);
  if (cuts.length === 0) return;
  logger.warn(
    `the open-file limit (${limit}) leaves ${limit - OWN_FILES_RESERVE} descriptors for connections after ${OWN_FILES_RESERVE} for the node's own files; connection caps cut: ${cuts.join(", ")}; raise the limit (ulimit -n, LimitNOFILE) to serve more`,
  );
}
