import { TurnTaker } from "../app/event-loop-turn.js";
import type { AbciEvent } from "../app/events.js";
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

/** CometBFT's largest `per_page` of tx_search, and so the SDK's of GetTxsEvent (it asks CometBFT for its page). */
export const MAX_TX_SEARCH_PER_PAGE = 100;

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

export interface TxSearchOptions {
  page: number;
  perPage: number;
  order: "asc" | "desc";
  /** The search stops, throwing the signal's reason, once its caller has given up (its client left). */
  signal?: AbortSignal;
}

export interface TxSearchPage {
  /** The page's txs, in the order asked for. */
  locations: TxLocation[];
  /** Every match, counted as the search walked past them. */
  total: number;
}

/**
 * Finds committed txs matching every condition, in order, keeping only the page asked for and counting the
 * rest: candidates come from the tx-hash index, from the event index (walked over the query's height range only),
 * or, for a query on heights alone, from the number of txs each block meta records, so a search over every tx
 * reads no block. The walk gives the event loop its turns and stops when `signal` aborts.
 */
export async function searchTxs(
  blocks: BlockStore,
  conditions: readonly TxQueryCondition[],
  opts: TxSearchOptions,
): Promise<TxSearchPage> {
  let lo = 1;
  // A block saved but not yet applied has no results or indexes yet.
  let hi = blocks.unappliedHeight === undefined ? blocks.height : blocks.height - 1;
  for (const c of conditions) {
    if (c.key !== "tx.height") continue;
    const n = Number(c.value);
    if (c.op === "=") [lo, hi] = [Math.max(lo, n), Math.min(hi, n)];
    else if (c.op === ">") lo = Math.max(lo, n + 1);
    else if (c.op === ">=") lo = Math.max(lo, n);
    else if (c.op === "<") hi = Math.min(hi, n - 1);
    else hi = Math.min(hi, n);
  }
  const skip = (opts.page - 1) * opts.perPage;
  const page: TxLocation[] = [];
  let total = 0;
  const count = (loc: TxLocation) => {
    if (total >= skip && page.length < opts.perPage) page.push(loc);
    total++;
  };
  const turns = new TurnTaker(opts.signal);
  const reverse = opts.order === "desc";
  const hashTerm = conditions.find((c) => c.key === "tx.hash");
  const eventTerms = conditions.filter((c) => c.key !== "tx.hash" && c.key !== "tx.height");
  const events = new LastBlockEvents(blocks);

  if (hashTerm) {
    if (!/^[0-9A-Fa-f]{64}$/.test(hashTerm.value)) throw badQuery("tx.hash must be 64 hex characters");
    const loc = await blocks.txLocation(Buffer.from(hashTerm.value, "hex"));
    if (loc && loc.height >= lo && loc.height <= hi && (await events.carryAll(loc, eventTerms))) count(loc);
  } else if (eventTerms.length > 0) {
    // The index answers the first term; the others are checked on the events of each tx it names.
    const [first, ...rest] = eventTerms;
    for await (const loc of blocks.txsWithEvent(first.key, first.value, { from: lo, to: hi, reverse })) {
      await turns.step();
      if (await events.carryAll(loc, rest)) count(loc);
    }
  } else {
    for await (const { height, txs } of blocks.txCounts({ from: lo, to: hi, reverse })) {
      await turns.step();
      // Only the page's part of the block is listed; the rest is counted.
      const end = Math.min(txs, skip + opts.perPage - total);
      for (let i = Math.max(skip - total, 0); i < end; i++)
        page.push({ height, index: reverse ? txs - 1 - i : i });
      total += txs;
    }
  }
  return { locations: page, total };
}

/**
 * The events of the txs of one block at a time: a search names a block's txs together, so each block's results
 * are read once, and only one block's are held.
 */
class LastBlockEvents {
  private last: { height: number; results: BlockResults | undefined } | undefined;

  constructor(private readonly blocks: BlockStore) {}

  /** Whether the tx at `loc` has an event attribute for every condition. */
  async carryAll(loc: TxLocation, conditions: readonly TxQueryCondition[]): Promise<boolean> {
    if (conditions.length === 0) return true;
    if (this.last?.height !== loc.height)
      this.last = { height: loc.height, results: await this.blocks.results(loc.height) };
    const events: readonly AbciEvent[] = this.last.results?.txResults[loc.index]?.events ?? [];
    return conditions.every((c) =>
      events.some((e) => e.attributes.some((a) => `${e.type}.${a.key}` === c.key && a.value === c.value)),
    );
  }
}
