import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytesKey, lengthPrefixedBytesKey } from "../../../node/src/store/bytes-key.js";
import { prefixedKey } from "../../../node/src/store/prefixed-key.js";
import { stringKey } from "../../../node/src/store/string-key.js";
import { tupleKey } from "../../../node/src/store/tuple-key.js";
import { safeUint64Key, uint32Key } from "../../../node/src/store/uint-keys.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const joined = (...parts: Uint8Array[]) => hex(Buffer.concat(parts));

// Keys written byte by byte or joined in one copy, against the layouts spelled out with DataView and Buffer.
describe("key bytes", () => {
  it("uint32 and safe uint64 are DataView's big-endian bytes", () => {
    const u64 = (n: number) => {
      const b = new Uint8Array(8);
      new DataView(b.buffer).setBigUint64(0, BigInt(n));
      return hex(b);
    };
    const u32 = (n: number) => {
      const b = new Uint8Array(4);
      new DataView(b.buffer).setUint32(0, n);
      return hex(b);
    };
    for (const n of [0, 1, 255, 256, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER])
      expect(hex(safeUint64Key.encode(n))).toBe(u64(n));
    for (const n of [0, 1, 255, 256, 65535, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1])
      expect(hex(uint32Key.encode(n))).toBe(u32(n));
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.nat({ max: 0xffff_ffff }), (a, b) => {
        expect(hex(safeUint64Key.encode(a))).toBe(u64(a));
        expect(hex(uint32Key.encode(b))).toBe(u32(b));
      }),
      { numRuns: 3000 },
    );
  });

  it("a prefixed key is its prefix, then its inner key's bytes", () => {
    const balance = tupleKey(lengthPrefixedBytesKey, stringKey);
    const events = tupleKey(stringKey, stringKey, safeUint64Key);
    const addr = fc.uint8Array({ maxLength: 255 });
    const text = fc.string().filter((s) => !s.includes("\0"));
    fc.assert(
      fc.property(addr, text, text, fc.maxSafeNat(), (a, s, t, h) => {
        expect(hex(prefixedKey(0x01, bytesKey).encode(a))).toBe(joined(Uint8Array.of(1), a));
        expect(hex(prefixedKey(Uint8Array.of(2, 9), balance).encode([a, s]))).toBe(
          joined(Uint8Array.of(2, 9), Uint8Array.of(a.length), a, Buffer.from(s)),
        );
        expect(hex(prefixedKey(0x15, events).encode([s, t, h]))).toBe(
          joined(Uint8Array.of(0x15), Buffer.from(`${s}\0${t}\0`), safeUint64Key.encode(h)),
        );
        expect(hex(events.encode([s, t, h]))).toBe(
          joined(Buffer.from(`${s}\0${t}\0`), safeUint64Key.encode(h)),
        );
      }),
      { numRuns: 2000 },
    );
    // A Buffer given as bytes is copied as its bytes.
    const b = Buffer.from("0a0b0c", "hex");
    expect(hex(prefixedKey(0x01, bytesKey).encode(b))).toBe("010a0b0c");
    expect(() => prefixedKey(0x01, balance).encode([b] as unknown as [Uint8Array, string])).toThrow(
      /takes exactly 2/,
    );
  });
});
