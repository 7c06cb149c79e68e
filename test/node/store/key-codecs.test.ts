import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesKey, lengthPrefixedBytesKey } from "../../../node/src/store/bytes-key.js";
import { escapeBytes, escapedBytesKey, escapedStringKey } from "../../../node/src/store/escaped-bytes-key.js";
import type { KeyCodec } from "../../../node/src/store/key-codec.js";
import { prefixedKey } from "../../../node/src/store/prefixed-key.js";
import { KeyCodecError } from "../../../node/src/store/store-errors.js";
import { stringKey } from "../../../node/src/store/string-key.js";
import { timeKey } from "../../../node/src/store/time-key.js";
import { tupleKey } from "../../../node/src/store/tuple-key.js";
import { safeUint64Key, uint32Key, uint64Key } from "../../../node/src/store/uint-keys.js";

const cmpBytes = (a: Uint8Array, b: Uint8Array) => Math.sign(Buffer.compare(a, b));
const cmp = <T>(a: T, b: T) => (a < b ? -1 : a > b ? 1 : 0);
const concat = (...parts: Uint8Array[]) => Uint8Array.from(Buffer.concat(parts));
const startsWith = (b: Uint8Array, p: Uint8Array) => Buffer.from(b).subarray(0, p.length).equals(p);

const malformed = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KeyCodecError);
    expect((e as KeyCodecError).code).toBe("MALFORMED_KEY");
    expect((e as Error).message).toMatch(/^malformed store key: /);
    return;
  }
  expect.fail("decoding malformed bytes succeeded");
};

const unencodable = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(KeyCodecError);
    expect((e as KeyCodecError).code).toBe("UNENCODABLE_KEY");
    expect((e as Error).message).toMatch(/^cannot encode store key: /);
    return;
  }
  expect.fail("encoding an impossible value succeeded");
};

const bytes = (maxLength = 40) => fc.uint8Array({ maxLength });
/** Bytes heavy in 0x00 and 0xff, the escape's special cases. */
const zeroyBytes = fc
  .array(fc.constantFrom(0x00, 0xff, 0x01, 0x7f), { maxLength: 12 })
  .map((a) => Uint8Array.from(a));
const text = fc.string({ unit: "binary", maxLength: 20 });
const addr = fc.uint8Array({ minLength: 1, maxLength: 255 });
const time = fc.date({ min: new Date(0), max: new Date(8.64e15), noInvalidDate: true });

/** A codec, values for it, and whether its terminal form delimits itself (so bytes after it are refused). */
interface Case<T> {
  name: string;
  codec: KeyCodec<T>;
  values: fc.Arbitrary<T>;
  selfDelimiting: boolean;
}
const c = <T>(
  name: string,
  codec: KeyCodec<T>,
  values: fc.Arbitrary<T>,
  selfDelimiting: boolean,
): Case<T> => ({
  name,
  codec,
  values,
  selfDelimiting,
});

const cases: Case<unknown>[] = [
  c("uint64", uint64Key, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), true),
  c("safe uint64", safeUint64Key, fc.maxSafeNat(), true),
  c("uint32", uint32Key, fc.nat({ max: 0xffff_ffff }), true),
  c("time", timeKey, time, true),
  c("bytes", bytesKey, bytes(), false),
  c("length-prefixed bytes", lengthPrefixedBytesKey, fc.uint8Array({ maxLength: 255 }), true),
  c("string", stringKey, text, false),
  c("escaped bytes", escapedBytesKey, fc.oneof(bytes(), zeroyBytes), true),
  c("escaped string", escapedStringKey, text, true),
  c("prefixed uint64", prefixedKey(0x41, uint64Key), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), true),
  c(
    "(time, len bytes, len bytes)",
    prefixedKey(0x41, tupleKey(timeKey, lengthPrefixedBytesKey, lengthPrefixedBytesKey)),
    fc.tuple(time, addr, addr),
    true,
  ),
  c(
    "(uint64, bytes)",
    prefixedKey(0x10, tupleKey(uint64Key, bytesKey)),
    fc.tuple(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), bytes()),
    false,
  ),
  c("(bytes, string)", prefixedKey(0x02, tupleKey(bytesKey, stringKey)), fc.tuple(addr, text), false),
  c(
    "(escaped string, escaped bytes, uint64)",
    prefixedKey(0x02, tupleKey(escapedStringKey, escapedBytesKey, safeUint64Key)),
    fc.tuple(text, zeroyBytes, fc.maxSafeNat()),
    true,
  ),
  c(
    "(string, string, uint64, uint32)",
    prefixedKey(0x15, tupleKey(stringKey, stringKey, safeUint64Key, uint32Key)),
    fc.tuple(
      text.filter((s) => !s.includes("\0")),
      text.filter((s) => !s.includes("\0")),
      fc.maxSafeNat(),
      fc.nat({ max: 0xffff_ffff }),
    ),
    true,
  ),
  c(
    "nested (uint64, (string, bytes))",
    tupleKey(uint64Key, tupleKey(stringKey, bytesKey)),
    fc.tuple(
      fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
      fc.tuple(
        text.filter((s) => !s.includes("\0")),
        bytes(),
      ),
    ),
    false,
  ),
];

/** Values a part may hold when more parts follow (a non-terminal string holds no NUL, bytes stop at 255). */
const nonTerminalValues = (k: Case<unknown>) =>
  k.values.filter((v) => {
    try {
      k.codec.encodeNonTerminal(v);
      return true;
    } catch {
      return false;
    }
  });

describe("key codecs", () => {
  describe.each(cases.map((k) => [k.name, k] as const))("%s", (_, k) => {
    it("decode(encode(x)) = x, and the non-terminal form reads back from inside a longer key", () => {
      fc.assert(
        fc.property(k.values, (v) => {
          expect(k.codec.decode(k.codec.encode(v))).toEqual(v);
        }),
      );
      fc.assert(
        fc.property(nonTerminalValues(k), bytes(6), bytes(6), (v, before, after) => {
          const part = k.codec.encodeNonTerminal(v);
          const [back, end] = k.codec.decodeNonTerminal(concat(before, part, after), before.length);
          expect(back).toEqual(v);
          expect(end).toBe(before.length + part.length);
        }),
      );
    });

    it("refuses a non-terminal part cut short", () => {
      fc.assert(
        fc.property(nonTerminalValues(k), fc.nat(), (v, cut) => {
          const part = k.codec.encodeNonTerminal(v);
          const short = part.subarray(0, cut % part.length);
          malformed(() => k.codec.decodeNonTerminal(short, 0));
        }),
      );
    });
  });

  // A part that ends the key as raw bytes or text owns whatever follows; the others delimit themselves.
  describe.each(cases.filter((k) => k.selfDelimiting).map((k) => [k.name, k] as const))("%s", (_, k) => {
    it("refuses a whole key cut short or with bytes left over", () => {
      fc.assert(
        fc.property(k.values, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 }), (v, cut, extra) => {
          const whole = k.codec.encode(v);
          malformed(() => k.codec.decode(whole.subarray(0, cut % whole.length)));
          malformed(() => k.codec.decode(concat(whole, extra)));
        }),
      );
    });
  });

  it("fixed-width integers and times sort by value, so queues and heights iterate in order", () => {
    const ordered = <T>(codec: KeyCodec<T>, values: fc.Arbitrary<T>, order: (a: T, b: T) => number) =>
      fc.assert(
        fc.property(values, values, (a, b) => {
          expect(cmpBytes(codec.encode(a), codec.encode(b))).toBe(order(a, b));
        }),
      );
    ordered(uint64Key, fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), cmp);
    ordered(safeUint64Key, fc.maxSafeNat(), cmp);
    ordered(uint32Key, fc.nat({ max: 0xffff_ffff }), cmp);
    ordered(timeKey, time, (a, b) => cmp(a.getTime(), b.getTime()));
  });

  it("a queue key sorts by its time before anything after it", () => {
    const queue = prefixedKey(0x41, tupleKey(timeKey, lengthPrefixedBytesKey, lengthPrefixedBytesKey));
    fc.assert(
      fc.property(time, addr, addr, time, addr, addr, (t1, d1, v1, t2, d2, v2) => {
        fc.pre(t1.getTime() !== t2.getTime());
        const order = cmpBytes(queue.encode([t1, d1, v1]), queue.encode([t2, d2, v2]));
        expect(order).toBe(cmp(t1.getTime(), t2.getTime()));
      }),
    );
  });

  it("escaping keeps byte order and prefixes, so escaped bounds select exactly the raw keys in range", () => {
    const raw = fc.oneof(bytes(8), zeroyBytes);
    fc.assert(
      fc.property(raw, raw, (a, b) => {
        expect(cmpBytes(escapedBytesKey.encode(a), escapedBytesKey.encode(b))).toBe(cmpBytes(a, b));
        expect(startsWith(escapedBytesKey.encode(b), escapeBytes(a))).toBe(startsWith(b, a));
      }),
    );
  });

  it("a key's leading parts are the prefix of exactly the keys that share them", () => {
    const balance = prefixedKey(0x02, tupleKey(bytesKey, stringKey));
    const delegation = prefixedKey(0x31, tupleKey(lengthPrefixedBytesKey, lengthPrefixedBytesKey));
    const vote = prefixedKey(0x20, tupleKey(uint64Key, bytesKey));
    // Short addresses that often extend one another: the case length prefixes exist for.
    const shortAddr = fc.uint8Array({ minLength: 1, maxLength: 3, max: 2 });
    fc.assert(
      fc.property(shortAddr, shortAddr, text, (a, b, denom) => {
        expect(startsWith(balance.encode([b, denom]), balance.prefixOf(a))).toBe(Buffer.from(a).equals(b));
        expect(startsWith(delegation.encode([b, a]), delegation.prefixOf(a))).toBe(Buffer.from(a).equals(b));
      }),
    );
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
        addr,
        (i, j, voter) => {
          expect(startsWith(vote.encode([j, voter]), vote.prefixOf(i))).toBe(i === j);
        },
      ),
    );
    expect(balance.prefixOf()).toEqual(balance.prefix);
  });

  it("refuses a key of another layout's prefix", () => {
    const votes = prefixedKey(0x20, tupleKey(uint64Key, bytesKey));
    const deposits = prefixedKey(0x10, tupleKey(uint64Key, bytesKey));
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }), addr, (id, who) => {
        malformed(() => votes.decode(deposits.encode([id, who])));
      }),
    );
    malformed(() => votes.decode(new Uint8Array()));
    malformed(() => prefixedKey(Uint8Array.of(0x00, 0x63), stringKey).decode(Uint8Array.of(0x00)));
    expect(() => votes.decode(Uint8Array.of(0x21, 0, 0, 0, 0, 0, 0, 0, 1))).toThrow(
      "malformed store key: expected prefix 0x20 ((uint64, bytes)), got 0x21",
    );
  });

  it("a string reads back as the very string written, a leading U+FEFF and U+0000 included", () => {
    for (const codec of [stringKey, escapedStringKey])
      for (const s of ["\uFEFFv2", "\uFEFF", "a\u0000b", ""]) expect(codec.decode(codec.encode(s))).toBe(s);
    expect(stringKey.decodeNonTerminal(stringKey.encodeNonTerminal("\uFEFFx"), 0)).toEqual(["\uFEFFx", 5]);
  });

  it("refuses bytes no encoder makes: bad escapes, bad UTF-8, out-of-range numbers", () => {
    malformed(() => escapedBytesKey.decode(Uint8Array.of(0x61, 0x00, 0x01, 0x00, 0x00)));
    malformed(() => escapedBytesKey.decode(Uint8Array.of(0x61, 0x00)));
    malformed(() => escapedBytesKey.decode(Uint8Array.of(0x61)));
    malformed(() => stringKey.decode(Uint8Array.of(0xc3, 0x28)));
    malformed(() => stringKey.decodeNonTerminal(Uint8Array.of(0x61, 0x62), 0));
    malformed(() => safeUint64Key.decode(uint64Key.encode(2n ** 53n)));
    malformed(() => timeKey.decode(safeUint64Key.encode(8.64e15 + 1)));
    malformed(() => lengthPrefixedBytesKey.decode(Uint8Array.of(3, 1, 2)));
    expect(() => uint64Key.decode(Uint8Array.of(1, 2, 3))).toThrow(
      "malformed store key: uint64 needs 8 bytes at offset 0, only 3 remain",
    );
  });

  it("refuses to encode a value its layout cannot hold, instead of writing a key that reads back wrong", () => {
    unencodable(() => uint64Key.encode(-1n));
    unencodable(() => uint64Key.encode(2n ** 64n));
    unencodable(() => safeUint64Key.encode(-1));
    unencodable(() => safeUint64Key.encode(2 ** 53));
    unencodable(() => safeUint64Key.encode(1.5));
    unencodable(() => uint32Key.encode(2 ** 32));
    unencodable(() => timeKey.encode(new Date(-1)));
    unencodable(() => timeKey.encode(new Date(Number.NaN)));
    // One length byte: an address of 256 bytes would wrap to 0 and swallow the next part.
    unencodable(() => lengthPrefixedBytesKey.encode(new Uint8Array(256)));
    unencodable(() => bytesKey.encodeNonTerminal(new Uint8Array(256)));
    unencodable(() => stringKey.encodeNonTerminal("a\0b"));
    const pair = tupleKey(uint64Key, bytesKey);
    unencodable(() => pair.encode([1n] as unknown as [bigint, Uint8Array]));
    unencodable(() => pair.prefixOf(...([1n, new Uint8Array()] as unknown as [bigint])));
  });
});
