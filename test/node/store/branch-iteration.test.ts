import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CacheMultiStore } from "../../../node/src/store/cache-multi-store.js";
import { mapKey } from "../../../node/src/store/map-key.js";
import type { IterateOptions, KVStore } from "../../../node/src/store/multi-store.js";
import {
  bytes,
  commitNext,
  hex,
  openTempStateStore,
  type TempStateStore,
  text,
  type Write,
} from "./temp-state-store.js";

const STORE = "s";
/** Bytes that exercise the edges of key order: 0x00, the last ASCII byte, the first above it, 0xff. */
const ALPHABET = [0x00, 0x01, 0x7f, 0x80, 0xff];
const symbols = (n: number) => fc.array(fc.constantFrom(...ALPHABET), { minLength: n, maxLength: n });
// Short keys mostly, so writes, committed keys and bounds meet often.
const keyArb = fc
  .oneof(
    { weight: 3, arbitrary: symbols(1) },
    { weight: 3, arbitrary: symbols(2) },
    { weight: 1, arbitrary: symbols(3) },
  )
  .map((a) => Uint8Array.from(a));
// Bounds left open more often than not, so most ranges hold something.
const optKey = (arb: fc.Arbitrary<Uint8Array>) =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 2, arbitrary: arb });
const rangeArb = fc.record({
  prefix: optKey(symbols(1).map((a) => Uint8Array.from(a))),
  start: optKey(keyArb),
  end: optKey(keyArb),
  reverse: fc.boolean(),
});

/** Every key of the alphabet, so each run can set the committed state it wants over the last one. */
const UNIVERSE: Uint8Array[] = [];
for (const a of ALPHABET) {
  UNIVERSE.push(Uint8Array.of(a));
  for (const b of ALPHABET) {
    UNIVERSE.push(Uint8Array.of(a, b));
    for (const c of ALPHABET) UNIVERSE.push(Uint8Array.of(a, b, c));
  }
}

type Op =
  | { t: "set"; level: number; key: Uint8Array; value: string }
  | { t: "del"; level: number; key: Uint8Array }
  | { t: "write"; level: number }
  | { t: "discard"; level: number }
  | { t: "open"; level: number; range: IterateOptions }
  | { t: "step"; which: number };

const LEVELS = 3;
const level = fc.nat(LEVELS - 1);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      t: fc.constant("set" as const),
      level,
      key: keyArb,
      value: fc.string({ maxLength: 3 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("del" as const), level, key: keyArb }) },
  {
    weight: 1,
    arbitrary: fc.record({
      t: fc.constant("write" as const),
      level: fc.integer({ min: 1, max: LEVELS - 1 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("discard" as const), level }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("open" as const), level, range: rangeArb }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant("step" as const), which: fc.nat(3) }) },
);

/** What an iteration must yield, by the rules branches keep: in range, deletions hidden, byte order. */
function expected(state: Map<string, string>, o: IterateOptions): [string, string][] {
  const inRange = (k: string) =>
    (!o.prefix || k.startsWith(hex(o.prefix))) &&
    (!o.start || k >= hex(o.start)) &&
    (!o.end || k < hex(o.end));
  // Hex keeps byte order: two digits a byte, and a prefix sorts before its extensions.
  const out = [...state].filter(([k]) => inRange(k)).sort(([a], [b]) => (a < b ? -1 : 1));
  return o.reverse ? out.reverse() : out;
}

// A store branch (CacheKVStore) over committed state and over other branches, compared with a model of what
// it must show: the semantics iteration must keep whatever structure holds a branch's writes.
describe("store branch iteration keeps its semantics", () => {
  let t: TempStateStore;
  beforeAll(async () => {
    t = await openTempStateStore();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("matches a model over nested branches, including writes while iterations are open", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(keyArb, fc.string({ maxLength: 3 })), {
          selector: ([k]) => hex(k),
          maxLength: 30,
        }),
        fc.array(opArb, { maxLength: 80 }),
        async (committed, ops) => {
          const base = new Map(committed.map(([k, v]) => [hex(k), `c${v}`]));
          await commitNext(
            t.store,
            UNIVERSE.map((k): Write => [STORE, k, base.get(hex(k)) ?? null]),
          );
          const root = new CacheMultiStore(t.store.view());
          const branches = [root];
          for (let i = 1; i < LEVELS; i++) branches.push(branches[i - 1].branch());
          const kv = (l: number): KVStore => branches[l].store(STORE);
          const pending: Map<string, string | null>[] = branches.map(() => new Map());
          const visible = (l: number) => {
            const state = new Map(base);
            for (let i = 0; i <= l; i++)
              for (const [k, v] of pending[i]) v === null ? state.delete(k) : state.set(k, v);
            return state;
          };
          const open: {
            it: AsyncIterator<[Uint8Array, Uint8Array]>;
            want: [string, string][];
            at: number;
          }[] = [];
          const step = async (o: (typeof open)[number]) => {
            const r = await o.it.next();
            if (o.at === o.want.length) expect(r.done).toBe(true);
            else expect(r.done ? undefined : [hex(r.value[0]), text(r.value[1])]).toEqual(o.want[o.at++]);
            return r.done;
          };
          for (const op of ops) {
            if (op.t === "set") {
              kv(op.level).set(op.key, bytes(op.value));
              pending[op.level].set(hex(op.key), op.value);
            } else if (op.t === "del") {
              kv(op.level).delete(op.key);
              pending[op.level].set(hex(op.key), null);
            } else if (op.t === "write") {
              branches[op.level].write();
              for (const [k, v] of pending[op.level]) pending[op.level - 1].set(k, v);
              pending[op.level].clear();
            } else if (op.t === "discard") {
              branches[op.level].discard();
              pending[op.level].clear();
            } else if (op.t === "open") {
              // Started as a for-await loop starts it: the iterator and its first step in one go.
              const o = {
                it: kv(op.level).iterate(op.range)[Symbol.asyncIterator](),
                want: expected(visible(op.level), op.range),
                at: 0,
              };
              if (!(await step(o))) open.push(o);
            } else if (open.length > 0) {
              const o = open[op.which % open.length];
              if (await step(o)) open.splice(open.indexOf(o), 1);
            }
          }
          // Every iteration still open yields the rest of the state it started on, whatever was written since.
          for (const o of open) while (!(await step(o)));
        },
      ),
      { numRuns: 500 },
    );
  });
  it("an open iteration yields the writes it started on while the branch is written and iterated again", async () => {
    const b = new CacheMultiStore(t.store.view()).branch().store(STORE);
    for (const k of ["k1", "k2", "k3", "k4"]) b.set(bytes(k), bytes("old"));
    const first = b.iterate({ prefix: bytes("k") })[Symbol.asyncIterator]();
    expect(text((await first.next()).value[0])).toBe("k1");
    b.set(bytes("k3"), bytes("new"));
    b.set(bytes("k25"), bytes("new"));
    b.delete(bytes("k4"));
    const second: string[] = [];
    for await (const [k, v] of b.iterate({ prefix: bytes("k") })) second.push(`${text(k)}=${text(v)}`);
    expect(second).toEqual(["k1=old", "k2=old", "k25=new", "k3=new"]);
    const rest: string[] = [];
    for (let r = await first.next(); !r.done; r = await first.next())
      rest.push(`${text(r.value[0])}=${text(r.value[1])}`);
    expect(rest).toEqual(["k2=old", "k3=old", "k4=old"]);
  });
});

/**
 * A pending write whose key is counted each time it is read: every structure that holds a branch's writes
 * must read a write's key to place it in an iteration, so the count is the writes the iteration looked at.
 */
function countedWrite(key: Uint8Array, value: Uint8Array, seen: { reads: number }) {
  return {
    get key() {
      seen.reads++;
      return key;
    },
    value,
  };
}

// The reviewer's finding (issue 29, point 7): each iteration of a branch sorted every write the branch held,
// so a loop that iterates once per item over a branch that grows with each item was quadratic.
describe("an iteration over a branch costs what it reads, not what the branch holds", () => {
  let t: TempStateStore;
  beforeAll(async () => {
    t = await openTempStateStore();
    await commitNext(t.store, [[STORE, "q/0005", "committed"]]);
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("looks at a few writes per iteration of a small range, among 20,000 held", async () => {
    const branch = new CacheMultiStore(t.store.view()).store(STORE);
    const seen = { reads: 0 };
    const hold = (k: string, v: string) => {
      const key = bytes(k);
      branch.pending.set(mapKey(key), countedWrite(key, bytes(v), seen));
    };
    for (let i = 0; i < 20_000; i++) hold(`a/${String(i).padStart(6, "0")}`, "x");
    const rounds = 200;
    let yielded = 0;
    seen.reads = 0;
    for (let i = 0; i < rounds; i++) {
      // A loop that writes as it goes, then reads a small range: the gov EndBlock's shape.
      hold(`z/${String(i).padStart(6, "0")}`, "y");
      hold(`q/${String(i % 10).padStart(4, "0")}`, `${i}`);
      const got: string[] = [];
      for await (const [k] of branch.iterate({ prefix: bytes("q/") })) got.push(text(k)!);
      expect(got).toContain("q/0005");
      yielded += got.length;
    }
    // Each yielded write is read a few times (merge steps); the 20,000 others never.
    expect(seen.reads).toBeLessThanOrEqual(4 * yielded);
    expect(seen.reads / rounds).toBeLessThan(60);
  });
});
