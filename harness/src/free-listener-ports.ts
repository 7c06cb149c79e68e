import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/**
 * Points every listener of a `chaind testnet` home at 127.0.0.1 on ports the OS reports free, so tests running
 * in parallel never fight over the default ports, and config.toml names the real RPC port (visor reads it).
 */
export async function useFreeListenerPorts(home: string): Promise<void> {
  setListenerPorts(home, {
    rpc: await freePort(),
    api: await freePort(),
    grpc: await freePort(),
    telemetry: await freePort(),
    p2p: await freePort(),
    abci: await freePort(),
  });
}

/**
 * Every listener of a home on 127.0.0.1 port 0, which the OS picks as the node binds it (the node logs the
 * addresses), so no parallel test can take a port between a check and the bind. For tests that need no port
 * before the node starts (visor reads config.toml, so it needs useFreeListenerPorts).
 */
export function listenOnPickedPorts(home: string): void {
  setListenerPorts(home, { rpc: 0, api: 0, grpc: 0, telemetry: 0 });
}

/**
 * A `chaind testnet` home made to run under CometBFT: config.toml's consensus_engine, every listener (CometBFT's
 * p2p and the ABCI socket too) on free loopback ports, and `timeout_commit` for the block time.
 */
export async function useCometbftEngine(home: string, blockTime = "300ms"): Promise<void> {
  await useFreeListenerPorts(home);
  const path = join(home, "config", "config.toml");
  const doc = parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
  (doc as Record<string, unknown>).consensus_engine = "cometbft";
  doc.consensus.timeout_commit = blockTime;
  writeFileSync(path, stringify(doc));
}

function setListenerPorts(
  home: string,
  ports: { rpc: number; api: number; grpc: number; telemetry: number; p2p?: number; abci?: number },
) {
  const edit = (file: string, apply: (doc: Record<string, Record<string, unknown>>) => void) => {
    const path = join(home, "config", file);
    const doc = parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
    apply(doc);
    writeFileSync(path, stringify(doc));
  };
  edit("app.toml", (doc) => {
    doc.api.address = `tcp://127.0.0.1:${ports.api}`;
    doc.grpc.address = `127.0.0.1:${ports.grpc}`;
    doc.telemetry.address = `127.0.0.1:${ports.telemetry}`;
  });
  edit("config.toml", (doc) => {
    doc.rpc.laddr = `tcp://127.0.0.1:${ports.rpc}`;
    // CometBFT's own listeners, when it runs on the home: its p2p port, and where chaind serves it ABCI.
    if (ports.p2p !== undefined) doc.p2p = { ...doc.p2p, laddr: `tcp://127.0.0.1:${ports.p2p}` };
    if (ports.abci !== undefined)
      (doc as Record<string, unknown>).proxy_app = `tcp://127.0.0.1:${ports.abci}`;
  });
}
