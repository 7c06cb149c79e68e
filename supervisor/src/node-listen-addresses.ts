import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "smol-toml";

/** Where a node listens, in the forms visor dials: gRPC `host:port`, REST and RPC `http://host:port`. */
export interface NodeListenAddresses {
  grpc: string;
  rest: string;
  rpc: string;
}

/** The Cosmos SDK and CometBFT defaults, used when the home does not name a fixed port. */
const DEFAULTS: NodeListenAddresses = {
  grpc: "localhost:9090",
  rest: "http://127.0.0.1:1317",
  rpc: "http://127.0.0.1:26657",
};

function readToml(path: string): Record<string, Record<string, unknown>> {
  try {
    return parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
  } catch {
    return {};
  }
}

/** `host:port` to dial for a listen address; null for none, port 0 (picked at start-up) or a bad value. */
function dialable(listen: unknown): string | null {
  if (typeof listen !== "string") return null;
  const m = /^(?:[a-z]+:\/\/)?([^:/]*|\[[^\]]+\]):(\d+)$/.exec(listen);
  if (!m || m[2] === "0") return null;
  const host = !m[1] || m[1] === "0.0.0.0" ? "127.0.0.1" : m[1] === "[::]" ? "[::1]" : m[1];
  return `${host}:${m[2]}`;
}

/**
 * The node's listeners as its own home configures them: `[grpc] address` and `[api] address` of
 * config/app.toml, `[rpc] laddr` of config/config.toml. A missing file, key or fixed port gives the default.
 */
export function nodeListenAddresses(home: string): NodeListenAddresses {
  const app = readToml(join(home, "config", "app.toml"));
  const node = readToml(join(home, "config", "config.toml"));
  const grpc = dialable(app.grpc?.address);
  const rest = dialable(app.api?.address);
  const rpc = dialable(node.rpc?.laddr);
  return {
    grpc: grpc ?? DEFAULTS.grpc,
    rest: rest ? `http://${rest}` : DEFAULTS.rest,
    rpc: rpc ? `http://${rpc}` : DEFAULTS.rpc,
  };
}
