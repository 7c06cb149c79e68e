import { closeSync, openSync, readSync } from "node:fs";
import { VisorError } from "../errors/visor-error.js";

/** Longer strings at the top level (none that matter here) are skipped, not kept. */
const MAX_KEPT_STRING = 4096;

/**
 * The top-level `chain_id` of a genesis file. A genesis can be hundreds of megabytes, so the file is scanned in
 * chunks, tracking only nesting and strings, and the scan stops at the value: `chain_id` precedes `app_state`
 * in the layouts of CometBFT and of the Cosmos SDK, so a few kilobytes are usually read.
 */
export function genesisChainId(path: string): string {
  const fd = openSync(path, "r");
  try {
    const decoder = new TextDecoder("utf-8", { fatal: false });
    const buf = Buffer.alloc(64 * 1024);
    let depth = 0;
    let inString = false;
    let escaped = false;
    let raw = "";
    let expectKey = false;
    let key: string | null = null;
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      const text = n > 0 ? decoder.decode(buf.subarray(0, n), { stream: true }) : "";
      for (const c of text) {
        if (inString) {
          if (escaped) escaped = false;
          else if (c === "\\") escaped = true;
          else if (c === '"') {
            inString = false;
            if (depth !== 1) continue;
            const value = raw.length <= MAX_KEPT_STRING ? (JSON.parse(`"${raw}"`) as string) : null;
            if (expectKey) {
              key = value;
              expectKey = false;
            } else if (key === "chain_id") return value ?? "";
            continue;
          }
          if (depth === 1 && raw.length <= MAX_KEPT_STRING) raw += c;
        } else if (c === '"') {
          inString = true;
          raw = "";
        } else if (c === "{" || c === "[") {
          depth++;
          if (depth === 1) expectKey = c === "{";
        } else if (c === "}" || c === "]") depth--;
        else if (c === "," && depth === 1) {
          expectKey = true;
          key = null;
        } else if (depth === 1 && key === "chain_id" && !/[\s:]/.test(c))
          throw new VisorError("CONFIG", `${path}: chain_id is not a string`);
      }
      if (n === 0) break;
    }
    throw new VisorError("CONFIG", `${path} has no chain_id`);
  } catch (e) {
    if (e instanceof VisorError) throw e;
    throw new VisorError("CONFIG", `cannot read the chain id from ${path}: ${(e as Error).message}`);
  } finally {
    closeSync(fd);
  }
}
