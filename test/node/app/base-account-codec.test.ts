import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import {
  type BaseAccount,
  BaseAccountSchema,
  ModuleAccountSchema,
} from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { describe, expect, it } from "vitest";
import {
  BASE_ACCOUNT_TYPE_URL,
  decodeBaseAccountRecord,
  encodeBaseAccountRecord,
} from "../../../node/src/modules/auth/base-account-codec.js";

/** What the account keeper wrote before the hand-written codec: protobuf-es' Any(BaseAccount). */
const reference = (base: BaseAccount): Uint8Array =>
  toBinary(
    AnySchema,
    create(AnySchema, { typeUrl: BASE_ACCOUNT_TYPE_URL, value: toBinary(BaseAccountSchema, base) }),
  );
const referenceDecode = (raw: Uint8Array): BaseAccount =>
  fromBinary(BaseAccountSchema, fromBinary(AnySchema, raw).value);

/** A small deterministic generator, so a failure names a reproducible case. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const EDGE_NUMBERS = [
  0n,
  1n,
  127n,
  128n,
  16383n,
  16384n,
  2n ** 31n - 1n,
  2n ** 31n,
  2n ** 32n - 1n,
  2n ** 32n,
  2n ** 49n - 1n,
  2n ** 49n,
  2n ** 53n + 1n,
  2n ** 56n,
  2n ** 63n,
  2n ** 64n - 1n,
];

function accounts(): BaseAccount[] {
  const next = rng(7);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256));
  const out: BaseAccount[] = [create(BaseAccountSchema)];
  const keys: (Any | undefined)[] = [
    undefined,
    create(AnySchema),
    create(AnySchema, { typeUrl: "/sdk.crypto.secp256k1.PubKey" }),
    create(AnySchema, { value: bytes(35) }),
  ];
  for (let i = 0; i < 400; i++) {
    const key =
      i % 5 === 0
        ? pick(keys)
        : create(AnySchema, {
            typeUrl: pick(["/sdk.crypto.secp256k1.PubKey", "/sdk.crypto.multisig.LegacyAminoPubKey"]),
            value: bytes(pick([35, 0, 1, 127, 128, 300, 20000])),
          });
    out.push(
      create(BaseAccountSchema, {
        address: pick([
          "",
          "chain1qqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqqq",
          "x".repeat(pick([1, 127, 128, 300])),
        ]),
        pubKey: key,
        accountNumber: next() < 0.5 ? pick(EDGE_NUMBERS) : BigInt(Math.floor(next() * 1e6)),
        sequence: next() < 0.5 ? pick(EDGE_NUMBERS) : BigInt(Math.floor(next() * 1e6)),
      }),
    );
  }
  return out;
}

describe("stored plain-account codec", () => {
  it("writes the bytes protobuf-es writes and reads them back as protobuf-es does", () => {
    for (const acc of accounts()) {
      const raw = encodeBaseAccountRecord(acc);
      // Compared as hex: a deep equality on the large keys would go element by element.
      expect(Buffer.from(raw!).toString("hex")).toBe(Buffer.from(reference(acc)).toString("hex"));
      const decoded = decodeBaseAccountRecord(raw!);
      expect(decoded).toEqual(referenceDecode(raw!));
      expect(toBinary(BaseAccountSchema, decoded!)).toEqual(toBinary(BaseAccountSchema, acc));
    }
  });

  it("uses the type URL the type registry packs accounts with", () => {
    expect(BASE_ACCOUNT_TYPE_URL).toBe("/sdk.auth.v1beta1.BaseAccount");
  });

  it("leaves shapes it does not handle to protobuf-es when writing", () => {
    const withUnknown = fromBinary(BaseAccountSchema, Uint8Array.of(0x18, 5, 0x28, 1));
    expect(withUnknown.$unknown?.length).toBe(1);
    expect(encodeBaseAccountRecord(withUnknown)).toBeUndefined();
    const keyWithUnknown = create(BaseAccountSchema, {
      pubKey: fromBinary(AnySchema, Uint8Array.of(0x0a, 1, 0x61, 0x18, 1)),
    });
    expect(encodeBaseAccountRecord(keyWithUnknown)).toBeUndefined();
    expect(encodeBaseAccountRecord(create(BaseAccountSchema, { address: "é" }))).toBeUndefined();
    expect(encodeBaseAccountRecord(create(BaseAccountSchema, { sequence: 2n ** 64n }))).toBeUndefined();
    expect(encodeBaseAccountRecord(create(BaseAccountSchema, { sequence: -1n }))).toBeUndefined();
  });

  it("leaves records it does not handle to protobuf-es when reading", () => {
    const base = create(BaseAccountSchema, { address: "chain1abc", accountNumber: 3n, sequence: 9n });
    const value = toBinary(BaseAccountSchema, base);
    const wrap = (typeUrl: string, v: Uint8Array) =>
      toBinary(AnySchema, create(AnySchema, { typeUrl, value: v }));
    const cases: [string, Uint8Array][] = [
      [
        "module account",
        wrap(
          `/${ModuleAccountSchema.typeName}`,
          toBinary(ModuleAccountSchema, create(ModuleAccountSchema, { baseAccount: base, name: "fee" })),
        ),
      ],
      ["cosmos type URL", wrap("/cosmos.auth.v1beta1.BaseAccount", value)],
      ["unknown field in the account", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(...value, 0x28, 1))],
      ["unknown field in the Any", Uint8Array.of(...wrap(BASE_ACCOUNT_TYPE_URL, value), 0x18, 1)],
      ["unknown field in the key", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(...value, 0x12, 2, 0x18, 1))],
      ["a field twice", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(...value, 0x20, 10))],
      ["non-ASCII address", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(0x0a, 2, 0xc3, 0xa9))],
      ["wrong wire type", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(0x1a, 1, 0))],
      ["length past the end", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(0x0a, 5, 0x61))],
      ["varint cut short", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(0x18, 0x80))],
      ["varint past 64 bits", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(0x18, ...Array(9).fill(0xff), 0x02))],
      ["varint of 11 bytes", wrap(BASE_ACCOUNT_TYPE_URL, Uint8Array.of(0x18, ...Array(10).fill(0x80), 0x00))],
    ];
    for (const [name, raw] of cases) expect(decodeBaseAccountRecord(raw), name).toBeUndefined();
  });

  it("reads what protobuf-es reads from records it did not write: fields out of order, long varints", () => {
    const raw = Uint8Array.of(
      ...[0x12, 10],
      ...[0x20, 0x85, 0x80, 0x80, 0x00], // sequence 5 in a 4-byte varint
      ...[0x0a, 1, 0x61],
      ...[0x18, 1],
      ...[0x0a, 29],
      ...new TextEncoder().encode(BASE_ACCOUNT_TYPE_URL),
    );
    expect(decodeBaseAccountRecord(raw)).toEqual(referenceDecode(raw));
    expect(decodeBaseAccountRecord(raw)?.sequence).toBe(5n);
    const empty = toBinary(AnySchema, create(AnySchema, { typeUrl: BASE_ACCOUNT_TYPE_URL }));
    expect(decodeBaseAccountRecord(empty)).toEqual(create(BaseAccountSchema));
  });
});
