import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";

/**
 * The first of `count` consecutive loopback ports that are all free now. Taken below Linux's ephemeral range
 * (32768 on), where the OS hands out the ports that other tests' clients and `listen(0)` ask it for, so none of
 * them can take one between this check and the bind (a port the OS picked could be).
 */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const start = 10_000 + Math.floor(Math.random() * (32_000 - 10_000 - count));
    const ports = Array.from({ length: count }, (_, i) => start + i);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return start;
  }
  throw new Error(`no ${count} consecutive free ports found on 127.0.0.1`);
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return freePortRange(1);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
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
