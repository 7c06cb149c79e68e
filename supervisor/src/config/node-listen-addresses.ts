import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseListenAddress } from "@chaind/core/listen-address";
import { parse } from "smol-toml";

/**
 * Where a node listens, in the forms visor dials: gRPC `host:port`, REST and RPC `http://host:port`. An empty
 * string is a transport the node's config does not enable (or whose port visor cannot know): it is never asked.
 */
export interface NodeListenAddresses {
  grpc: string;
  rest: string;
  rpc: string;
}

/** The Cosmos SDK and CometBFT defaults (`host:port`), for a key the home's files leave out. */
const DEFAULTS = { grpc: "localhost:9090", rest: "127.0.0.1:1317", rpc: "127.0.0.1:26657" };

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
  let at: { host: string; port: number };
  try {
    at = parseListenAddress(listen.replace(/^[a-z]+:\/\//, ""), "listen address");
  } catch {
    return null;
  }
  if (at.port === 0) return null;
  const host = at.host === "0.0.0.0" ? "127.0.0.1" : at.host === "::" ? "::1" : at.host;
  return host.includes(":") ? `[${host}]:${at.port}` : `${host}:${at.port}`;
}

/**
 * The listener of one transport: off when its `enable` says so; the default address when the key is absent;
 * otherwise the configured address, or none when visor cannot dial it (port 0). Never a guessed port: whatever
 * answers on a port the node does not use may be anyone's.
 */
function listener(enabled: boolean, address: unknown, fallback: string): string | null {
  if (!enabled) return null;
  if (address === undefined) return fallback;
  return dialable(address);
}

/**
 * The node's listeners as its own home configures them, in Cosmos's defaults where a key is absent:
 * `[grpc] enable` (default true) and `address` of config/app.toml, `[api] enable` (default false) and
 * `address`, and `[rpc] laddr` of config/config.toml (empty turns the RPC off).
 */
export function nodeListenAddresses(home: string): NodeListenAddresses {
  const app = readToml(join(home, "config", "app.toml"));
  const node = readToml(join(home, "config", "config.toml"));
  const grpc = listener(app.grpc?.enable !== false, app.grpc?.address, DEFAULTS.grpc);
  const rest = listener(app.api?.enable === true, app.api?.address, DEFAULTS.rest);
  const rpc = listener(node.rpc?.laddr !== "", node.rpc?.laddr, DEFAULTS.rpc);
  return { grpc: grpc ?? "", rest: rest ? `http://${rest}` : "", rpc: rpc ? `http://${rpc}` : "" };
}
