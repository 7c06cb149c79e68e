import { type DescMessage, fromBinary, type Message } from "@bufbuild/protobuf";
import {
  type AuthInfo,
  AuthInfoSchema,
  type TxBody,
  TxBodySchema,
  type TxRaw,
  TxRawSchema,
} from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { Namespace } from "./namespace.js";
import { txHash } from "./tx-hash.js";
import type { TypeRegistry } from "./type-registry.js";

/** A transaction message unpacked from its Any, with the namespace its type URL used. */
export interface TxMsg {
  typeName: string;
  namespace: Namespace;
  desc: DescMessage;
  message: Message;
}

export interface DecodedTx {
  bytes: Uint8Array;
  /** sha256 of the raw bytes: the CometBFT tx hash. */
  hash: Uint8Array;
  raw: TxRaw;
  body: TxBody;
  authInfo: AuthInfo;
  msgs: TxMsg[];
}

const decodeError = (why: string) => ChainError.wrap(SdkErrors.TxDecode, why);

/** Field numbers with this bit set are non-critical: an old node may ignore them (ADR-020). */
const NON_CRITICAL_BIT = 1024;

/** Reads a protobuf varint at `pos`; returns [value, next position]. */
function readVarint(buf: Uint8Array, pos: number): [number, number] {
  let result = 0;
  let shift = 0;
  for (let i = pos; i < buf.length && shift < 35; i++) {
    const b = buf[i];
    result += (b & 0x7f) * 2 ** shift;
    if ((b & 0x80) === 0) return [result, i + 1];
    shift += 7;
  }
  throw decodeError("malformed varint");
}

/** TxRaw must hold only fields 1, 2, 3, each length-delimited, in ascending order (ADR-027). */
function checkTxRawLayout(buf: Uint8Array): void {
  let pos = 0;
  let last = 0;
  while (pos < buf.length) {
    const [tag, afterTag] = readVarint(buf, pos);
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (field < 1 || field > 3) throw decodeError(`unknown field ${field} in TxRaw`);
    if (wire !== 2) throw decodeError(`field ${field} of TxRaw has wire type ${wire}, expected 2`);
    if (field < last) throw decodeError(`TxRaw field ${field} is out of order`);
    last = field;
    const [len, afterLen] = readVarint(buf, afterTag);
    pos = afterLen + len;
    if (pos > buf.length) throw decodeError("TxRaw field length runs past the end of the input");
  }
}

/** Rejects unknown fields anywhere inside `msg`, except non-critical ones where `allowNonCritical`. */
function rejectUnknown(desc: DescMessage, msg: Message, allowNonCritical: boolean, path: string): void {
  const unknown = (msg as { $unknown?: { no: number }[] }).$unknown ?? [];
  for (const u of unknown) {
    if (allowNonCritical && (u.no & NON_CRITICAL_BIT) !== 0) continue;
    throw decodeError(`unknown field ${u.no} in ${path}`);
  }
  for (const f of desc.fields) {
    if (f.fieldKind !== "message" && !(f.fieldKind === "list" && f.listKind === "message")) continue;
    const value = (msg as unknown as Record<string, unknown>)[f.localName];
    const sub = f.fieldKind === "message" ? f.message : f.message;
    if (!sub || sub.typeName === "google.protobuf.Any") continue;
    const items = Array.isArray(value) ? value : value ? [value] : [];
    for (const item of items) rejectUnknown(sub, item as Message, false, `${path}.${f.name}`);
  }
}

function parse<T extends Message>(desc: DescMessage, bytes: Uint8Array, what: string): T {
  try {
    return fromBinary(desc, bytes) as T;
  } catch (e) {
    throw decodeError(`cannot decode ${what}: ${(e as Error).message}`);
  }
}

/** Strict decoding of tx bytes as Cosmos does it: layout, unknown fields, every message resolvable. */
export function decodeTx(bytes: Uint8Array, types: TypeRegistry): DecodedTx {
  if (bytes.length === 0) throw decodeError("empty tx bytes");
  checkTxRawLayout(bytes);
  const raw = parse<TxRaw>(TxRawSchema, bytes, "TxRaw");
  const body = parse<TxBody>(TxBodySchema, raw.bodyBytes, "TxBody");
  rejectUnknown(TxBodySchema, body, true, "TxBody");
  const authInfo = parse<AuthInfo>(AuthInfoSchema, raw.authInfoBytes, "AuthInfo");
  rejectUnknown(AuthInfoSchema, authInfo, false, "AuthInfo");
  const msgs = body.messages.map((any): TxMsg => {
    const { message, desc, namespace } = types.unpack(any);
    rejectUnknown(desc, message, false, desc.typeName);
    return { typeName: desc.typeName, namespace, desc, message };
  });
  return { bytes, hash: txHash(bytes), raw, body, authInfo, msgs };
}
