import { JsonRpcError } from "./json-rpc-error.js";
import type { RpcParams } from "./json-rpc-server.js";

/** An integer given as a JSON number or a decimal string; absent, null and "" are undefined. */
export function optInt(p: RpcParams, name: string): number | undefined {
  const v = p[name];
  if (v === undefined || v === null || v === "") return undefined;
  const n = typeof v === "number" ? v : typeof v === "string" && /^-?\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n))
    throw JsonRpcError.invalidParams(`${name} must be an integer, got ${JSON.stringify(v)}`);
  return n;
}

export function str(p: RpcParams, name: string, required = true): string {
  const v = p[name];
  if (v === undefined || v === null) {
    if (required) throw JsonRpcError.invalidParams(`missing parameter ${name}`);
    return "";
  }
  if (typeof v !== "string") throw JsonRpcError.invalidParams(`${name} must be a string`);
  return v;
}

/** Bytes in JSON are base64; the URI form sends `0x`-prefixed hex. */
export function bytesParam(p: RpcParams, name: string, encoding: "base64" | "hex"): Uint8Array {
  const v = str(p, name);
  if (v.startsWith("0x")) return hexBytes(v.slice(2), name);
  if (encoding === "hex") return hexBytes(v, name);
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(v)) throw JsonRpcError.invalidParams(`${name} must be base64`);
  return new Uint8Array(Buffer.from(v, "base64"));
}

function hexBytes(v: string, name: string): Uint8Array {
  if (!/^([0-9A-Fa-f]{2})*$/.test(v)) throw JsonRpcError.invalidParams(`${name} must be hex`);
  return new Uint8Array(Buffer.from(v, "hex"));
}

/** A tx hash: hex (URI form, tools) or base64 (CometBFT's JSON form for bytes); 32 bytes either way. */
export function hashParam(p: RpcParams): Uint8Array {
  const v = str(p, "hash");
  const bytes = /^(0x)?[0-9A-Fa-f]{64}$/.test(v)
    ? hexBytes(v.replace(/^0x/, ""), "hash")
    : bytesParam(p, "hash", "base64");
  if (bytes.length !== 32) throw JsonRpcError.invalidParams("hash must be 32 bytes");
  return bytes;
}

/** The height to serve: the latest when absent or 0, else one at most the latest. */
export function heightParam(p: RpcParams, latest: number): number {
  const h = optInt(p, "height") ?? 0;
  if (h < 0) throw JsonRpcError.invalidParams("height must not be negative");
  if (h === 0) return latest;
  if (h > latest)
    throw JsonRpcError.internal(
      `height ${h} must be less than or equal to the current blockchain height ${latest}`,
    );
  return h;
}

/** CometBFT's `per_page`: 30 when absent or below 1, at most 100. */
export function perPageParam(p: RpcParams): number {
  const perPage = optInt(p, "per_page") ?? 30;
  return perPage < 1 ? 30 : Math.min(perPage, 100);
}

/** CometBFT's paging: `page` from 1, `per_page` as perPageParam. */
export function paging(p: RpcParams): { page: number; perPage: number } {
  const page = optInt(p, "page") ?? 1;
  if (page < 1) throw JsonRpcError.invalidParams("page must be at least 1");
  return { page, perPage: perPageParam(p) };
}

/** A page among `total` results, as CometBFT checks it once the total is known: 1 when absent. */
export function pageWithin(p: RpcParams, perPage: number, total: number): number {
  const page = optInt(p, "page");
  if (page === undefined) return 1;
  const pages = Math.max(Math.floor((total - 1) / perPage) + 1, 1);
  if (page < 1 || page > pages)
    throw JsonRpcError.internal(`page should be within [1, ${pages}] range, given ${page}`);
  return page;
}
