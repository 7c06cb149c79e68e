import { create, type DescField, type DescMessage, type Message, ScalarType } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { aminoTime } from "./amino-json.js";
import { formatDec, parseDec } from "./dec.js";
import { isLegacyDecField, legacyDecJson } from "./legacy-dec-field.js";
import type { TypeRegistry } from "./type-registry.js";
import { ZERO_TIME_SECONDS } from "./zero-timestamps.js";

/**
 * How one field renders, the SDK's `amino.*` field options: `dontOmitEmpty` is `amino.dont_omitempty`;
 * `legacy_coins` prints an empty list as `[]` instead of null; `cosmos_dec` and `cosmos_int` are the
 * `cosmos.Dec` / `cosmos.Int` scalars (a Dec with its 18 decimals, an empty one as "0").
 */
export interface AminoFieldRule {
  dontOmitEmpty?: boolean;
  encoding?: "legacy_coins" | "cosmos_dec" | "cosmos_int";
}

/** What amino JSON is made of. */
export type AminoValue = string | number | boolean | null | AminoValue[] | { [key: string]: AminoValue };

/**
 * One proto type in amino JSON: its amino name (`amino.name`, which a tx message and anything packed in an
 * Any must have), the rules of the fields that differ from "omit when empty", and for the few types that
 * print as something other than their fields (public keys: their key bytes), an encoder of their own.
 */
export interface AminoType {
  /** Full proto name in the `sdk.` namespace. */
  typeName: string;
  aminoName?: string;
  fields?: Readonly<Record<string, AminoFieldRule>>;
  encode?(message: Message): AminoValue;
}

const notSupported = (why: string) => ChainError.wrap(SdkErrors.NotSupported, why);

/** `sdk.bank.v1beta1.MsgSend` -> `cosmos.bank.v1beta1.MsgSend`: the name a Cosmos user knows it by. */
const cosmosName = (name: string) => (name.startsWith("sdk.") ? `cosmos.${name.slice(4)}` : name);

/**
 * Amino JSON of proto messages, field by field from their descriptors as the SDK's aminojson encoder does
 * (so no field can be left out of what a signature covers): fields by proto name, empty ones omitted unless
 * a rule keeps them, 64-bit integers as strings, enums as numbers, bytes as base64, times as RFC 3339, and
 * an Any as `{"type": <amino name>, "value": ...}` of the message it holds.
 */
export class AminoEncoder {
  /** The rules and names come from the app's type registry, where each module added its own. */
  constructor(private readonly types: TypeRegistry) {}

  /** `{"type", "value"}` of a message packed in an Any (a tx message, a proposal's message, a key). */
  anyJson(any: Any): AminoValue {
    const { desc, message } = this.types.unpack(any);
    return this.namedJson(desc, message);
  }

  /** `{"type", "value"}` of a message; fails, naming it, when it has no amino name. */
  namedJson(desc: DescMessage, message: Message): AminoValue {
    const name = this.types.aminoType(desc.typeName)?.aminoName;
    if (!name)
      throw notSupported(
        `message ${cosmosName(desc.typeName)} has no amino JSON encoding (SIGN_MODE_LEGACY_AMINO_JSON); sign it with SIGN_MODE_DIRECT`,
      );
    return { type: name, value: this.messageJson(desc, message) };
  }

  messageJson(desc: DescMessage, message: Message): AminoValue {
    switch (desc.typeName) {
      case "google.protobuf.Timestamp": {
        const t = message as unknown as { seconds: bigint; nanos: number };
        return aminoTime(t.seconds, t.nanos);
      }
      case "google.protobuf.Duration": {
        const d = message as unknown as { seconds: bigint; nanos: number };
        return (d.seconds * 1_000_000_000n + BigInt(d.nanos)).toString();
      }
      case "google.protobuf.Any":
        return this.anyJson(message as unknown as Any);
    }
    // Amino JSON cannot show unknown fields, so a signature over it would not cover them: anyone could add some
    // to a signed tx (inside an Any too, where the body's own check does not look) and change its hash.
    if ((message as { $unknown?: unknown[] }).$unknown?.length)
      throw ChainError.wrap(
        SdkErrors.TxDecode,
        `${cosmosName(desc.typeName)} has fields this node does not know, which amino JSON cannot sign`,
      );
    const entry = this.types.aminoType(desc.typeName);
    if (entry?.encode) return entry.encode(message);
    if (desc.oneofs.length > 0)
      throw notSupported(`amino JSON of ${cosmosName(desc.typeName)} (it has a oneof)`);
    const out: Record<string, AminoValue> = {};
    const fields = message as unknown as Record<string, unknown>;
    for (const f of desc.fields) {
      const rule = entry?.fields?.[f.name] ?? {};
      const v = this.fieldJson(f, fields[f.localName], rule);
      if (v !== undefined) out[f.name] = v;
    }
    return out;
  }

  /** undefined: the field is left out. */
  private fieldJson(f: DescField, v: unknown, rule: AminoFieldRule): AminoValue | undefined {
    switch (f.fieldKind) {
      case "list": {
        const items = v as unknown[];
        if (items.length === 0) {
          if (!rule.dontOmitEmpty) return undefined;
          return rule.encoding === "legacy_coins" ? [] : null;
        }
        return items.map((item) => {
          if (f.listKind === "message") return this.messageJson(f.message, item as Message);
          if (f.listKind === "enum") return item as number;
          return scalarJson(f.scalar, item, rule);
        });
      }
      case "message": {
        if (v === undefined) {
          if (!rule.dontOmitEmpty) return undefined;
          // gogoproto's non-nullable fields always hold a value: the zero time, or an empty message.
          if (f.message.typeName === "google.protobuf.Timestamp") return aminoTime(ZERO_TIME_SECONDS, 0);
          return this.messageJson(f.message, create(f.message));
        }
        return this.messageJson(f.message, v as Message);
      }
      case "enum":
        if (v === 0 && !rule.dontOmitEmpty) return undefined;
        return v as number;
      case "scalar":
        if (isZero(v) && !rule.dontOmitEmpty) return undefined;
        // A LegacyDec field holds the scaled digits, not the decimal text scalarJson expects.
        if (rule.encoding === "cosmos_dec" && v !== "" && isLegacyDecField(f))
          return legacyDecJson(f, v as string);
        return scalarJson(f.scalar, v, rule);
      case "map":
        throw notSupported(`amino JSON of map field ${f.name}`);
    }
  }
}

function isZero(v: unknown): boolean {
  if (v instanceof Uint8Array) return v.length === 0;
  return v === 0 || v === 0n || v === "" || v === false;
}

function scalarJson(type: ScalarType, v: unknown, rule: AminoFieldRule): AminoValue {
  switch (type) {
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return String(v);
    case ScalarType.BYTES:
      return Buffer.from(v as Uint8Array).toString("base64");
    case ScalarType.STRING: {
      const s = v as string;
      if (rule.encoding === "cosmos_int") return s === "" ? "0" : s;
      if (rule.encoding === "cosmos_dec") return s === "" ? "0" : formatDec(parseDec(s));
      return s;
    }
    default:
      return v as number | boolean;
  }
}
