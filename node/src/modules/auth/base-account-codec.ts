import { create } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { type BaseAccount, BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import { lengthDelimitedSize, ProtoWriter, varintSize } from "../../app/proto-writer.js";

/**
 * The stored record of a plain account, Any{type_url, value: BaseAccount{address, pub_key, account_number,
 * sequence}}, read and written by hand: every signer of every tx reads and rewrites it, and the reflective codec
 * was a large part of that. Only the common shape is handled; anything else (module accounts, unknown fields,
 * repeated fields, non-ASCII text, out-of-range numbers) gets undefined, and the caller uses protobuf-es, so
 * what is accepted and the bytes written are protobuf-es' own.
 */
export const BASE_ACCOUNT_TYPE_URL = `/${BaseAccountSchema.typeName}`;

const LEN = 2;
const VARINT = 0;
const MAX_UINT64 = 2n ** 64n - 1n;

/** Where reading stands in the record; `at` moves past what was read. */
interface Reader {
  bytes: Uint8Array;
  at: number;
}

/** A uint64 varint: at most 10 bytes, fitting 64 bits; undefined otherwise. */
function readUint64(r: Reader): bigint | undefined {
  const n = readVarint(r);
  return n === undefined ? undefined : BigInt(n);
}

/** A varint of at most 10 bytes fitting 64 bits, as a number up to 2^49 and a bigint past it; undefined otherwise. */
function readVarint(r: Reader): number | bigint | undefined {
  const { bytes } = r;
  let at = r.at;
  // Up to 7 bytes (49 bits) adds up exactly in a number.
  let n = 0;
  let scale = 1;
  for (let i = 0; i < 7; i++) {
    if (at >= bytes.length) return undefined;
    const b = bytes[at++];
    n += (b & 0x7f) * scale;
    if (b < 0x80) {
      r.at = at;
      return n;
    }
    scale *= 128;
  }
  let big = BigInt(n);
  for (let shift = 49n; shift < 70n; shift += 7n) {
    if (at >= bytes.length) return undefined;
    const b = bytes[at++];
    big |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) {
      if (big > MAX_UINT64) return undefined;
      r.at = at;
      return big;
    }
  }
  return undefined;
}

/** A length-delimited field's bytes (a view), or undefined when the length runs past the end. */
function readLength(r: Reader): Uint8Array | undefined {
  const len = readVarint(r);
  if (len === undefined || len > r.bytes.length - r.at) return undefined;
  const start = r.at;
  r.at += Number(len);
  return r.bytes.subarray(start, r.at);
}

const utf8 = new TextDecoder();

/** ASCII text as a string; undefined for any other byte (UTF-8 checks are left to protobuf-es). */
function ascii(bytes: Uint8Array): string | undefined {
  for (let i = 0; i < bytes.length; i++) if (bytes[i] > 0x7f) return undefined;
  return utf8.decode(bytes);
}

/** A length-delimited field holding ASCII text; undefined when it runs past the end or holds anything else. */
function readAscii(r: Reader): string | undefined {
  const b = readLength(r);
  return b && ascii(b);
}

/** Any{type_url = 1, value = 2}: its two fields, each at most once, nothing else. */
function readAny(bytes: Uint8Array): { typeUrl: string; value: Uint8Array } | undefined {
  const r: Reader = { bytes, at: 0 };
  let typeUrl: string | undefined;
  let value: Uint8Array | undefined;
  while (r.at < bytes.length) {
    const tag = bytes[r.at++];
    if (tag === ((1 << 3) | LEN) && typeUrl === undefined) {
      typeUrl = readAscii(r);
      if (typeUrl === undefined) return undefined;
    } else if (tag === ((2 << 3) | LEN) && value === undefined) {
      value = readLength(r);
      if (value === undefined) return undefined;
    } else return undefined;
  }
  return { typeUrl: typeUrl ?? "", value: value ?? new Uint8Array(0) };
}

/** The account in a stored record, or undefined when it is not the common plain-account shape. */
export function decodeBaseAccountRecord(raw: Uint8Array): BaseAccount | undefined {
  const outer = readAny(raw);
  if (!outer || outer.typeUrl !== BASE_ACCOUNT_TYPE_URL) return undefined;
  const r: Reader = { bytes: outer.value, at: 0 };
  const bytes = outer.value;
  let address: string | undefined;
  let pubKey: Any | undefined;
  let accountNumber: bigint | undefined;
  let sequence: bigint | undefined;
  while (r.at < bytes.length) {
    const tag = bytes[r.at++];
    if (tag === ((1 << 3) | LEN) && address === undefined) {
      address = readAscii(r);
      if (address === undefined) return undefined;
    } else if (tag === ((2 << 3) | LEN) && pubKey === undefined) {
      const b = readLength(r);
      const any = b && readAny(b);
      if (!any) return undefined;
      // Copied: the record's buffer may be reused by whoever read it.
      pubKey = create(AnySchema, { typeUrl: any.typeUrl, value: any.value.slice() });
    } else if (tag === ((3 << 3) | VARINT) && accountNumber === undefined) {
      accountNumber = readUint64(r);
      if (accountNumber === undefined) return undefined;
    } else if (tag === ((4 << 3) | VARINT) && sequence === undefined) {
      sequence = readUint64(r);
      if (sequence === undefined) return undefined;
    } else return undefined;
  }
  return create(BaseAccountSchema, {
    address: address ?? "",
    pubKey,
    accountNumber: accountNumber ?? 0n,
    sequence: sequence ?? 0n,
  });
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find any non-ASCII character
const NON_ASCII = /[^\u0000-\u007f]/;
const noUnknown = (m: { $unknown?: unknown[] }) => !m.$unknown || m.$unknown.length === 0;
const inUint64 = (n: bigint) => typeof n === "bigint" && n >= 0n && n <= MAX_UINT64;

/** Field sizes as protobuf-es writes them: a field with its default value is left out. */
function uint64Field(n: bigint): number {
  return n === 0n ? 0 : 1 + varintSize(n);
}

/**
 * The stored record of a plain account, byte for byte what protobuf-es writes for Any(BaseAccount); undefined
 * when the account is not in the shape handled here (the caller then uses protobuf-es).
 */
export function encodeBaseAccountRecord(base: BaseAccount): Uint8Array | undefined {
  const pk = base.pubKey;
  if (
    !noUnknown(base) ||
    NON_ASCII.test(base.address) ||
    !inUint64(base.accountNumber) ||
    !inUint64(base.sequence) ||
    (pk && (!noUnknown(pk) || NON_ASCII.test(pk.typeUrl) || !(pk.value instanceof Uint8Array)))
  )
    return undefined;
  const pkSize = pk ? lengthDelimitedSize(pk.typeUrl.length) + lengthDelimitedSize(pk.value.length) : 0;
  const valueSize =
    lengthDelimitedSize(base.address.length) +
    (pk ? 1 + varintSize(pkSize) + pkSize : 0) +
    uint64Field(base.accountNumber) +
    uint64Field(base.sequence);
  const w = new ProtoWriter(
    lengthDelimitedSize(BASE_ACCOUNT_TYPE_URL.length) + lengthDelimitedSize(valueSize),
  );
  w.byte((1 << 3) | LEN);
  w.varint(BASE_ACCOUNT_TYPE_URL.length);
  w.ascii(BASE_ACCOUNT_TYPE_URL);
  if (valueSize === 0) return w.done();
  w.byte((2 << 3) | LEN);
  w.varint(valueSize);
  if (base.address.length > 0) {
    w.byte((1 << 3) | LEN);
    w.varint(base.address.length);
    w.ascii(base.address);
  }
  if (pk) {
    w.byte((2 << 3) | LEN);
    w.varint(pkSize);
    if (pk.typeUrl.length > 0) {
      w.byte((1 << 3) | LEN);
      w.varint(pk.typeUrl.length);
      w.ascii(pk.typeUrl);
    }
    if (pk.value.length > 0) {
      w.byte((2 << 3) | LEN);
      w.varint(pk.value.length);
      w.bytes(pk.value);
    }
  }
  if (base.accountNumber !== 0n) {
    w.byte((3 << 3) | VARINT);
    w.varint(base.accountNumber);
  }
  if (base.sequence !== 0n) {
    w.byte((4 << 3) | VARINT);
    w.varint(base.sequence);
  }
  return w.done();
}
