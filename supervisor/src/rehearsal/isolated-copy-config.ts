import { readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parse, stringify } from "smol-toml";
import { freeLoopbackPort } from "../host/free-loopback-port.js";

type Table = Record<string, unknown>;

/** Keys whose value is somewhere a node listens, in CometBFT's config.toml and the SDK's app.toml. */
const LISTENER_KEY = /(^|[_-])(laddr|address|listen_addr|ws-address)$|^proxy_app$/;
/** `host:port` with or without a scheme; the host may be empty (`:26660`, every interface). */
const HOST_PORT = /^([a-z]+:\/\/)?(\[[0-9a-fA-F:.]+\]|[^\s:/[\]]*):\d+$/;

/** Every listener of a table (nested tables too) moved to its own free port on 127.0.0.1. */
async function moveListeners(table: Table, home: string): Promise<void> {
  for (const [key, value] of Object.entries(table)) {
    if (value && typeof value === "object" && !Array.isArray(value))
      await moveListeners(value as Table, home);
    else if (typeof value === "string" && LISTENER_KEY.test(key)) {
      if (value.startsWith("unix://")) table[key] = `unix://${join(home, "data", basename(value))}`;
      else {
        const m = HOST_PORT.exec(value);
        if (m) table[key] = `${m[1] ?? ""}127.0.0.1:${await freeLoopbackPort()}`;
      }
    }
  }
}

function edit(path: string, apply: (doc: Table) => Promise<void>): Promise<void> {
  const doc = parse(readFileSync(path, "utf8")) as Table;
  return apply(doc).then(() => writeFileSync(path, stringify(doc)));
}

const table = (doc: Table, name: string): Table => {
  if (!doc[name] || typeof doc[name] !== "object") doc[name] = {};
  return doc[name] as Table;
};

async function ensureListener(doc: Table, section: string, key: string, scheme: string): Promise<void> {
  const t = table(doc, section);
  if (typeof t[key] !== "string") t[key] = `${scheme}127.0.0.1:${await freeLoopbackPort()}`;
}

/**
 * Makes a copy of a home private: every listener on a free loopback port (never one of the live node's), no
 * peers, seeds, peer exchange or state sync (the copy must never reach the live network), no snapshots, no
 * halt height, and the REST gateway on (the rehearsal reads module versions through it). A listener the files
 * leave out would take its default port, the live node's: each gets a free one written in.
 */
export async function isolateCopyConfig(home: string): Promise<void> {
  await edit(join(home, "config", "config.toml"), async (doc) => {
    await moveListeners(doc, home);
    await ensureListener(doc, "rpc", "laddr", "tcp://");
    await ensureListener(doc, "p2p", "laddr", "tcp://");
    const p2p = table(doc, "p2p");
    for (const k of ["persistent_peers", "seeds", "unconditional_peer_ids", "external_address"]) p2p[k] = "";
    p2p.pex = false;
    table(doc, "statesync").enable = false;
    table(doc, "instrumentation").prometheus = false;
  });
  await edit(join(home, "config", "app.toml"), async (doc) => {
    await moveListeners(doc, home);
    doc["halt-height"] = 0;
    doc["halt-time"] = 0;
    table(doc, "state-sync")["snapshot-interval"] = 0;
    await ensureListener(doc, "grpc", "address", "");
    await ensureListener(doc, "api", "address", "tcp://");
    table(doc, "api").enable = true;
  });
}
