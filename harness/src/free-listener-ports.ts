import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "smol-toml";

/**
 * Points every listener of a `chaind testnet` home at 127.0.0.1 with a port the OS picks, so tests running in
 * parallel never fight over the default ports; each server logs the address it got.
 */
export function useFreeListenerPorts(home: string): void {
  const edit = (file: string, apply: (doc: Record<string, Record<string, unknown>>) => void) => {
    const path = join(home, "config", file);
    const doc = parse(readFileSync(path, "utf8")) as Record<string, Record<string, unknown>>;
    apply(doc);
    writeFileSync(path, stringify(doc));
  };
  edit("app.toml", (doc) => {
    doc.api.address = "tcp://127.0.0.1:0";
    doc.grpc.address = "127.0.0.1:0";
    doc.telemetry.address = "127.0.0.1:0";
  });
  edit("config.toml", (doc) => {
    doc.rpc.laddr = "tcp://127.0.0.1:0";
  });
}
