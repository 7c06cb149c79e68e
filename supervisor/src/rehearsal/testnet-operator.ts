import { closeSync, openSync, readSync } from "node:fs";
import { VisorError } from "../errors/visor-error.js";

/** Accounts come early in a genesis (auth, then bank); past this much, the scan gives up. */
const SCAN_BYTES = 64 * 1024 * 1024;
const ACCOUNT = /"address"\s*:\s*"([a-z][a-z0-9]*1[qpzry9x8gf2tvdw0s3jn54khce6mua7l]{38,90})"/;

/**
 * The operator `in-place-testnet` gives the copy's power and funds to: the first account address genesis.json
 * names (not a validator's or consensus address). Any account of the chain will do, since nothing is signed
 * with it: a rehearsal only needs an address in the chain's own bech32 prefix, whatever the binary.
 */
export function testnetOperator(genesisPath: string): string {
  const fd = openSync(genesisPath, "r");
  try {
    const buf = Buffer.alloc(1024 * 1024);
    let tail = "";
    for (let read = 0; read < SCAN_BYTES; ) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      read += n;
      // Kept across chunks: an address may straddle two.
      const text = tail + buf.subarray(0, n).toString("latin1");
      for (const m of text.matchAll(new RegExp(ACCOUNT, "g")))
        if (!/(valoper|valcons)1/.test(m[1])) return m[1];
      tail = text.slice(-200);
    }
  } finally {
    closeSync(fd);
  }
  throw new VisorError(
    "REHEARSAL",
    `no account address in the first ${SCAN_BYTES / 1024 / 1024} MiB of ${genesisPath}: the copy needs one to operate its validator`,
  );
}
