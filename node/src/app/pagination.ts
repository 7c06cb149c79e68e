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
 * Cosmos pagination over the keys under `prefix`: by key (next_key of the previous page) or by offset,
 * `limit` (default 100), `count_total` when paging by offset, and reverse order.
 */
export async function paginate<T>(
  store: KVStore,
  prefix: Uint8Array,
  req: PageRequest | undefined,
  decode: (keyAfterPrefix: Uint8Array, value: Uint8Array) => T | Promise<T>,
): Promise<{ items: T[]; page: PageResponse }> {
  const key = req?.key ?? new Uint8Array();
  const offset = req?.offset ?? 0n;
  const limit = req?.limit && req.limit > 0n ? req.limit : DEFAULT_PAGE_LIMIT;
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
      items.push(await decode(k.slice(prefix.length), v));
    }
    return { items, page: create(PageResponseSchema, { nextKey, total: 0n }) };
  }

  let index = 0n;
  const countTotal = req?.countTotal ?? false;
  for await (const [k, v] of store.iterate({ prefix, reverse })) {
    if (index >= offset && index < offset + limit) items.push(await decode(k.slice(prefix.length), v));
    else if (index === offset + limit) {
      nextKey = k.slice(prefix.length);
      if (!countTotal) break;
    }
    index++;
  }
  return { items, page: create(PageResponseSchema, { nextKey, total: countTotal ? index : 0n }) };
}
