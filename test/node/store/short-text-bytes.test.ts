import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeAmount } from "../../../node/src/modules/bank/bank-keeper.js";
import { stringKey } from "../../../node/src/store/string-key.js";
import { utf8Bytes } from "../../../node/src/store/utf8-bytes.js";

const utf8 = new TextEncoder();
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

// The hand-written paths against the encoder and decoder they stand in for.
describe("utf8Bytes", () => {
  const edges = [
    "",
    "a",
    "stake",
    "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2",
    "x".repeat(63),
    "x".repeat(64),
    "x".repeat(65),
    `${"x".repeat(63)}é`,
    "\u007f",
    "\u0080",
    "é",
    "日本",
    "\u{1f600}",
    "\ud800",
    "a\udc00b",
    "\0",
    "a\0b",
    "\ufeffstake",
  ];

  it("is TextEncoder's bytes, with the zeros asked for appended", () => {
    for (const s of edges)
      for (const zeros of [0, 1, 2]) {
        const want = new Uint8Array(utf8.encode(s).length + zeros);
        want.set(utf8.encode(s));
        expect(hex(utf8Bytes(s, zeros)), JSON.stringify(s)).toBe(hex(want));
      }
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" })),
        fc.nat(2),
        (s, z) => {
          const want = new Uint8Array(utf8.encode(s).length + z);
          want.set(utf8.encode(s));
          expect(hex(utf8Bytes(s, z))).toBe(hex(want));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("gives stringKey the bytes it gave before", () => {
    for (const s of edges.filter((e) => !e.includes("\0"))) {
      expect(hex(stringKey.encode(s))).toBe(hex(utf8.encode(s)));
      expect(hex(stringKey.encodeNonTerminal(s))).toBe(`${hex(utf8.encode(s))}00`);
    }
  });
});

describe("decodeAmount", () => {
  const textual = (v: Uint8Array) => BigInt(new TextDecoder().decode(v));
  const same = (v: Uint8Array) => {
    let want: bigint | string;
    try {
      want = textual(v);
    } catch (e) {
      want = (e as Error).constructor.name;
    }
    let got: bigint | string;
    try {
      got = decodeAmount(v);
    } catch (e) {
      got = (e as Error).constructor.name;
    }
    expect(got, hex(v)).toBe(want);
  };

  it("reads stored amounts as the text decoder and BigInt do", () => {
    for (const s of [
      "0",
      "1",
      "007",
      "999999999999999",
      "9007199254740991",
      "9007199254740993",
      "18446744073709551616",
      "1".repeat(15),
      "9".repeat(15),
      "9".repeat(16),
      "9".repeat(80),
    ])
      same(utf8.encode(s));
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 2n ** 256n }), (n) => same(utf8.encode(n.toString()))),
      { numRuns: 3000 },
    );
  });

  it("falls back on anything but plain digits, whitespace and BOM included", () => {
    for (const s of ["", " 1", "1 ", "-1", "+1", "1e3", "0x10", "1.5", "\ufeff12", "１２", "\u00a012", "a"])
      same(utf8.encode(s));
    same(Uint8Array.of(0xa0, 0x31));
    same(Uint8Array.of(0x31, 0xff));
    fc.assert(fc.property(fc.uint8Array({ maxLength: 20 }), same), { numRuns: 3000 });
  });
});
