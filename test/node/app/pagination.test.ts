import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { PageRequestSchema } from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  paginate,
  paginateSelected,
} from "../../../node/src/app/pagination.js";
import { CacheMultiStore } from "../../../node/src/store/cache-multi-store.js";
import {
  bytes,
  commitNext,
  openTempStateStore,
  type TempStateStore,
  text,
} from "../store/temp-state-store.js";

const ENTRIES = 1500;
const name = (i: number) => `k${String(i).padStart(5, "0")}`;

describe("pagination", () => {
  let t: TempStateStore;
  beforeAll(async () => {
    t = await openTempStateStore();
    // Values: the entry's number, so a filter can keep the even ones.
    await commitNext(
      t.store,
      Array.from({ length: ENTRIES }, (_, i) => ["bank", name(i), String(i)] as [string, string, string]),
    );
  });
  afterAll(async () => {
    await t.cleanup();
  });
  const store = () => new CacheMultiStore(t.store.view()).store("bank");
  const page = (req: MessageInitShape<typeof PageRequestSchema>) =>
    paginate(store(), bytes("k"), create(PageRequestSchema, req), (_k, v) => Number(text(v)));
  const evens = (req: MessageInitShape<typeof PageRequestSchema>) =>
    paginateSelected(store(), bytes("k"), create(PageRequestSchema, req), (_k, v) => {
      const n = Number(text(v));
      return n % 2 === 0 ? n : undefined;
    });

  it("cuts a limit past MAX_PAGE_LIMIT to it, with the next page's key, and uses the default for none", async () => {
    for (const limit of [MAX_PAGE_LIMIT + 1n, 1_000_000_000n, 2n ** 64n - 1n]) {
      const p = await page({ limit });
      expect(p.items).toHaveLength(Number(MAX_PAGE_LIMIT));
      expect(text(p.page.nextKey)).toBe(name(Number(MAX_PAGE_LIMIT)).slice(1));
    }
    const rest = await page({ limit: 1_000_000_000n, key: bytes(name(Number(MAX_PAGE_LIMIT)).slice(1)) });
    expect(rest.items).toEqual(Array.from({ length: ENTRIES - 1000 }, (_, i) => 1000 + i));
    expect(rest.page.nextKey).toHaveLength(0);
    expect((await page({})).items).toHaveLength(Number(DEFAULT_PAGE_LIMIT));
    expect((await page({ limit: 5n, offset: 1498n, countTotal: true })).page.total).toBe(BigInt(ENTRIES));
  });

  // Issue 34: the SDK's Paginate and FilteredPaginate set count_total when the limit is 0 (or no pagination is
  // given); before, such a page answered total 0, and clients that page by total stopped after the first.
  it("counts the total when no limit is given, as the SDK does, and not for a page by key", async () => {
    const all = await paginate(store(), bytes("k"), undefined, (_k, v) => Number(text(v)));
    expect(all.page.total).toBe(BigInt(ENTRIES));
    expect((await page({})).page.total).toBe(BigInt(ENTRIES));
    expect((await page({ offset: 10n })).page.total).toBe(BigInt(ENTRIES));
    expect((await evens({})).page.total).toBe(BigInt(ENTRIES / 2));
    expect((await page({ limit: 5n })).page.total).toBe(0n);
    expect((await page({ key: all.page.nextKey })).page.total).toBe(0n);
  });

  it("counts only the selected entries toward the offset, the limit and the total", async () => {
    const first = await evens({ limit: 3n, countTotal: true });
    expect(first.items).toEqual([0, 2, 4]);
    expect(text(first.page.nextKey)).toBe(name(6).slice(1));
    expect(first.page.total).toBe(BigInt(ENTRIES / 2));
    expect((await evens({ offset: 2n, limit: 2n })).items).toEqual([4, 6]);
    expect((await evens({ key: first.page.nextKey, limit: 2n })).items).toEqual([6, 8]);
    expect((await evens({ reverse: true, limit: 2n })).items).toEqual([1498, 1496]);
    expect((await evens({ limit: 1_000_000_000n })).items).toHaveLength(ENTRIES / 2);
    await expect(evens({ key: bytes("x"), offset: 1n })).rejects.toThrow(/either offset or key/);
  });
});
