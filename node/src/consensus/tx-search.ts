import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { BlockResults } from "./block-results.js";
import type { BlockStore, TxLocation } from "./block-store.js";

type Op = "=" | "<" | "<=" | ">" | ">=";

/** One `key op operand` term of a CometBFT event query (`tx.height >= 5`, `message.sender = 'sdk1…'`). */
export interface TxQueryCondition {
  key: string;
  op: Op;
  value: string;
}

const badQuery = (why: string) => ChainError.wrap(SdkErrors.InvalidRequest, `invalid tx query: ${why}`);

const TERM = /^\s*([A-Za-z0-9_.\-/]+)\s*(<=|>=|=|<|>)\s*(?:'([^']*)'|"([^"]*)"|(-?\d+))\s*$/;

/**
 * Parses the CometBFT query language as far as tx_search needs it: terms joined by AND, each comparing
 * `tx.hash`, `tx.height` or an indexed `type.key` with a quoted string or a number.
 */
export function parseTxQuery(query: string): TxQueryCondition[] {
  if (!query.trim()) throw badQuery("the query is empty");
  return query.split(/\s+AND\s+/).map((term) => {
    const m = term.match(TERM);
    if (!m)
      throw badQuery(`cannot parse ${JSON.stringify(term.trim())}; expected key=value terms joined by AND`);
    const [, key, op, single, double, num] = m;
    const value = single ?? double ?? num;
    if (key === "tx.height" && !/^\d+$/.test(value))
      throw badQuery(`tx.height must be a number, got ${value}`);
    if (key !== "tx.height" && op !== "=") throw badQuery(`only tx.height can be compared with ${op}`);
    return { key, op: op as Op, value };
  });
}

export interface TxSearchPage {
  locations: TxLocation[];
  total: number;
}

/**
 * Finds committed txs matching every condition: candidates come from the tx-hash or event index when the
 * query has an equality on one, else from the blocks in the height range; the rest filter the candidates.
 */
export async function searchTxs(
  blocks: BlockStore,
  conditions: readonly TxQueryCondition[],
  opts: { page: number; perPage: number; order: "asc" | "desc" },
): Promise<TxSearchPage> {
  let lo = 1;
  let hi = blocks.height;
  for (const c of conditions) {
    if (c.key !== "tx.height") continue;
    const n = Number(c.value);
    if (c.op === "=") [lo, hi] = [Math.max(lo, n), Math.min(hi, n)];
    else if (c.op === ">") lo = Math.max(lo, n + 1);
    else if (c.op === ">=") lo = Math.max(lo, n);
    else if (c.op === "<") hi = Math.min(hi, n - 1);
    else hi = Math.min(hi, n);
  }
  const resultsCache = new Map<number, BlockResults | undefined>();
  const resultsAt = async (h: number) => {
    if (!resultsCache.has(h)) resultsCache.set(h, await blocks.results(h));
    return resultsCache.get(h);
  };
  const hashTerm = conditions.find((c) => c.key === "tx.hash");
  const eventTerm = conditions.find((c) => c.key !== "tx.hash" && c.key !== "tx.height");
  let candidates: TxLocation[] = [];
  if (hashTerm) {
    if (!/^[0-9A-Fa-f]{64}$/.test(hashTerm.value)) throw badQuery("tx.hash must be 64 hex characters");
    const loc = await blocks.txLocation(Buffer.from(hashTerm.value, "hex"));
    if (loc) candidates = [loc];
  } else if (eventTerm) {
    for await (const loc of blocks.txsWithEvent(eventTerm.key, eventTerm.value)) candidates.push(loc);
  } else {
    for (let h = lo; h <= hi; h++) {
      const r = await resultsAt(h);
      r?.txResults.forEach((_, index) => {
        candidates.push({ height: h, index });
      });
    }
  }
  const matches: TxLocation[] = [];
  for (const loc of candidates) {
    if (loc.height < lo || loc.height > hi) continue;
    const events = (await resultsAt(loc.height))?.txResults[loc.index]?.events ?? [];
    const ok = conditions.every(
      (c) =>
        c.key === "tx.hash" ||
        c.key === "tx.height" ||
        events.some((e) => e.attributes.some((a) => `${e.type}.${a.key}` === c.key && a.value === c.value)),
    );
    if (ok) matches.push(loc);
  }
  if (opts.order === "desc") matches.reverse();
  const start = (opts.page - 1) * opts.perPage;
  return { locations: matches.slice(start, start + opts.perPage), total: matches.length };
}
