import { create } from "@bufbuild/protobuf";
import { concatBytes } from "@chaind/core/bytes";
import {
  type PageRequest,
  type PageResponse,
  PageResponseSchema,
} from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { KVStore } from "../store/multi-store.js";

export const DEFAULT_PAGE_LIMIT = 100n;

/**
 * The most items one page holds. A larger `limit` is cut to it, and next_key says where the rest begins, as
 * CometBFT cuts tx_search's per_page to 100. The Cosmos SDK has no such cap (its PaginationMaxLimit is the
 * largest uint64): a client asking for a billion items got every one in one answer, built in memory.
 */
export const MAX_PAGE_LIMIT = 1000n;

/** A page's items and what the client needs to ask for the next one. */
export interface Page<T> {
  items: T[];
  page: PageResponse;
}

/**
 * Cosmos pagination over the keys under `prefix`: by key (next_key of the previous page) or by offset, `limit`
 * (default 100, at most MAX_PAGE_LIMIT), `count_total` when paging by offset (implied when no limit is given,
 * as the SDK's paginators imply it), and reverse order. Only the page's entries are decoded; the entries an
 * offset skips and those count_total counts are walked, each charged to the query's gas meter like any read, so
 * the query gas limit bounds that work.
 */
export function paginate<T>(
  store: KVStore,
  prefix: Uint8Array,
  req: PageRequest | undefined,
  decode: (keyAfterPrefix: Uint8Array, value: Uint8Array) => T | Promise<T>,
): Promise<Page<T>> {
  return walkPage(store, prefix, req, decode, false);
}

/**
 * As `paginate`, over a list that leaves some entries out (the SDK's FilteredPaginate): `select` answers
 * undefined for those, and they count toward neither the offset, the limit nor the total. Every entry walked
 * is selected, so a sparse list costs the gas of the entries between its items.
 */
export function paginateSelected<T>(
  store: KVStore,
  prefix: Uint8Array,
  req: PageRequest | undefined,
  select: (keyAfterPrefix: Uint8Array, value: Uint8Array) => T | undefined | Promise<T | undefined>,
): Promise<Page<T>> {
  return walkPage(store, prefix, req, select, true);
}

/** The page size a request asks for: the default for 0, cut to MAX_PAGE_LIMIT. */
export function pageLimit(limit: bigint | undefined): bigint {
  if (!limit || limit <= 0n) return DEFAULT_PAGE_LIMIT;
  return limit > MAX_PAGE_LIMIT ? MAX_PAGE_LIMIT : limit;
}

async function walkPage<T>(
  store: KVStore,
  prefix: Uint8Array,
  req: PageRequest | undefined,
  select: (keyAfterPrefix: Uint8Array, value: Uint8Array) => T | undefined | Promise<T | undefined>,
  filtered: boolean,
): Promise<Page<T>> {
  const key = req?.key ?? new Uint8Array();
  const offset = req?.offset ?? 0n;
  const limit = pageLimit(req?.limit);
  const reverse = req?.reverse ?? false;
  if (key.length > 0 && offset > 0n)
    throw ChainError.wrap(
      SdkErrors.InvalidRequest,
      "paginate: invalid request, either offset or key is expected, got both",
    );

  const items: T[] = [];
  let nextKey = new Uint8Array();
  if (key.length > 0) {
    const bound = concatBytes(prefix, key);
    const range = reverse
      ? { prefix, end: concatBytes(bound, new Uint8Array([0])) }
      : { prefix, start: bound };
    for await (const [k, v] of store.iterate({ ...range, reverse })) {
      if (BigInt(items.length) === limit) {
        nextKey = k.slice(prefix.length);
        break;
      }
      const item = await select(k.slice(prefix.length), v);
      if (item !== undefined) items.push(item);
    }
    return { items, page: create(PageResponseSchema, { nextKey, total: 0n }) };
  }

  let index = 0n;
  // As the SDK's paginators: a request without a limit (or without pagination) gets its total counted.
  const countTotal = (req?.countTotal ?? false) || !req?.limit;
  for await (const [k, v] of store.iterate({ prefix, reverse })) {
    const rel = k.slice(prefix.length);
    let item: T | undefined;
    if (filtered) {
      item = await select(rel, v);
      if (item === undefined) continue;
    }
    if (index >= offset && index < offset + limit)
      items.push(filtered ? (item as T) : ((await select(rel, v)) as T));
    else if (index === offset + limit) {
      nextKey = rel;
      if (!countTotal) break;
    }
    index++;
  }
  return { items, page: create(PageResponseSchema, { nextKey, total: countTotal ? index : 0n }) };
}
