import {
  type DescEnum,
  type DescField,
  type DescMessage,
  fromBinary,
  type Message,
  type Registry,
  ScalarType,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { isLegacyDecField, legacyDecJson } from "../../app/legacy-dec-field.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import { unsetMessageJson } from "../../app/zero-timestamps.js";
import { gatewayJson } from "./gateway-json.js";

// biome-ignore lint/suspicious/noExplicitAny: writers read fields of messages of any type by their local names
type AnyValue = any;

/** A value's JSON text. */
type ValueWriter = (value: AnyValue) => string;
/** A message's fields as `"name":value` pairs joined by commas (no braces), so an Any can put "@type" first. */
type FieldsWriter = (message: AnyValue) => string;
/** One field's `"name":value`, or undefined when the field is not printed. */
type FieldWriter = (message: AnyValue) => string | undefined;

/** ES2024's string methods (Node 20 has them; the project's lib is ES2023). */
interface WellFormedString {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/**
 * Writes an answer's JSON text straight from the message, as `JSON.stringify(gatewayJson(...))` prints it,
 * without building the JSON value first: one writer per message type, worked out once from its descriptor.
 * What the writers do not cover (unknown fields, wrapper types, a value not of its field's type) goes the
 * way every answer went before: to protobuf bytes and back, then gatewayJson, so the text, or the error, is
 * always the one it gave.
 */
export class GatewayJsonWriter {
  private readonly messages = new Map<DescMessage, FieldsWriter>();
  private readonly jsonOptions;

  constructor(private readonly registry: Registry) {
    this.jsonOptions = { ...PROTO_JSON_WRITE, registry };
  }

  write(desc: DescMessage, message: Message): string {
    try {
      return this.writeCompiled(desc, message);
    } catch {
      // As the gateway printed before its writers: the answer as it comes out of its protobuf bytes.
      const decoded = fromBinary(desc, toBinary(desc, message));
      return JSON.stringify(gatewayJson(desc, decoded, this.registry));
    }
  }

  /** The writers' text alone: throws where they do not cover the message instead of handing it on. */
  writeCompiled(desc: DescMessage, message: Message): string {
    return this.valueOf(desc)(message);
  }

  /** How a message of this type prints where it is a value. */
  private valueOf(desc: DescMessage): ValueWriter {
    if (desc.typeName === "google.protobuf.Any") return (any) => this.any(any);
    // Other well-known types print as strings, numbers or their own shapes, which gatewayJson leaves as is.
    if (desc.typeName.startsWith("google.protobuf.")) {
      if (isWrapper(desc)) return unsupported;
      return (m) => JSON.stringify(toJson(desc, m, this.jsonOptions));
    }
    const fields = this.fieldsOf(desc);
    return (m) => `{${fields(m)}}`;
  }

  private fieldsOf(desc: DescMessage): FieldsWriter {
    let fields = this.messages.get(desc);
    if (fields) return fields;
    // Registered before its fields are worked out, so a recursive type finds itself.
    const writers: FieldWriter[] = [];
    fields = (m) => {
      if (m.$unknown !== undefined) unsupported();
      let out = "";
      for (let i = 0; i < writers.length; i++) {
        const pair = writers[i](m);
        if (pair !== undefined) out = out === "" ? pair : `${out},${pair}`;
      }
      return out;
    };
    this.messages.set(desc, fields);
    // Declaration order, as Go prints a struct.
    for (const f of desc.fields) writers.push(this.field(f));
    return fields;
  }

  /** An Any: "@type" first, then the fields of the message it holds (a well-known type's JSON as "value"). */
  private any(any: AnyValue): string {
    const typeUrl: string = any.typeUrl;
    if (typeUrl === "") return "{}";
    const name = typeUrl.slice(typeUrl.lastIndexOf("/") + 1);
    const desc = this.registry.getMessage(name);
    if (!desc || desc.typeName !== name || desc.typeName === "google.protobuf.Any") return unsupported();
    const inner = fromBinary(desc, any.value);
    const head = `"@type":${JSON.stringify(typeUrl)}`;
    if (desc.typeName.startsWith("google.protobuf.")) return `{${head},"value":${this.valueOf(desc)(inner)}}`;
    const fields = this.fieldsOf(desc)(inner);
    return fields === "" ? `{${head}}` : `{${head},${fields}}`;
  }

  private field(f: DescField): FieldWriter {
    const key = `${JSON.stringify(f.name)}:`;
    const local = f.localName;
    if (f.fieldKind === "list") {
      const item = this.singular(f);
      return (m) => {
        const items: AnyValue[] = m[local];
        let out = "";
        for (let i = 0; i < items.length; i++) out += i === 0 ? item(items[i]) : `,${item(items[i])}`;
        return `${key}[${out}]`;
      };
    }
    if (f.fieldKind === "map") {
      const value = this.singular(f);
      return (m) => {
        const record: Record<string, AnyValue> = m[local];
        let out = "";
        for (const k of Object.keys(record)) {
          const pair = `${JSON.stringify(k)}:${value(record[k])}`;
          out = out === "" ? pair : `${out},${pair}`;
        }
        return `${key}{${out}}`;
      };
    }
    let value = this.singular(f);
    if (isLegacyDecField(f)) {
      const plain = value;
      value = (v) => {
        const text = plain(v);
        return text.startsWith('"') ? JSON.stringify(legacyDecJson(f, JSON.parse(text))) : text;
      };
    } else if (f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES && !f.oneof) {
      // Go's nil bytes.
      const plain = value;
      value = (v: Uint8Array) => (v.length === 0 ? "null" : plain(v));
    }
    if (f.oneof) {
      const oneof = f.oneof.localName;
      return (m) => {
        const o = m[oneof];
        return o.case === local ? key + value(o.value) : undefined;
      };
    }
    if (f.fieldKind === "message") {
      const unset = unsetMessageJson(f);
      const whenUnset = key + JSON.stringify(unset);
      return (m) => {
        const v = m[local];
        return v === undefined ? whenUnset : key + value(v);
      };
    }
    if (f.presence !== FeatureSet_FieldPresence.IMPLICIT)
      return (m) => {
        const v = m[local];
        return v !== undefined && Object.hasOwn(m, local) ? key + value(v) : undefined;
      };
    return (m) => key + value(m[local]);
  }

  /** How one value of a field (the field itself, an item of a list, a value of a map) prints. */
  private singular(f: DescField): ValueWriter {
    if (f.fieldKind === "map") {
      if (f.mapKind === "message") return this.messageValue(f.message);
      if (f.mapKind === "enum") return enumWriter(f.enum);
      return scalarWriter(f.scalar);
    }
    if (f.fieldKind === "list") {
      if (f.listKind === "message") return this.messageValue(f.message);
      if (f.listKind === "enum") return enumWriter(f.enum);
      return scalarWriter(f.scalar);
    }
    if (f.fieldKind === "message") return this.messageValue(f.message);
    if (f.fieldKind === "enum") return enumWriter(f.enum);
    return scalarWriter(f.scalar);
  }

  /** Worked out on first use, so a type that contains itself does not recurse while being compiled. */
  private messageValue(desc: DescMessage): ValueWriter {
    let writer: ValueWriter | undefined;
    return (v) => {
      writer ??= this.valueOf(desc);
      return writer(v);
    };
  }
}

function unsupported(): never {
  throw new Error("printed by gatewayJson");
}

function isWrapper(desc: DescMessage): boolean {
  return desc.file.name === "google/protobuf/wrappers";
}

function enumWriter(desc: DescEnum): ValueWriter {
  if (desc.typeName === "google.protobuf.NullValue") return () => "null";
  const names = new Map<number, string>();
  for (const v of desc.values) names.set(v.number, JSON.stringify(v.jsonName));
  return (v: number) => {
    if (typeof v !== "number") unsupported();
    return names.get(v) ?? String(v);
  };
}

/** protobuf-es's JSON of a scalar, as text. */
function scalarWriter(type: ScalarType): ValueWriter {
  switch (type) {
    case ScalarType.STRING:
      return (v: string) => {
        if (typeof v !== "string") unsupported();
        // On the wire a lone surrogate becomes U+FFFD; the answer is what a client decoding the bytes sees.
        const s = v as unknown as WellFormedString;
        return JSON.stringify(s.isWellFormed() ? v : s.toWellFormed());
      };
    case ScalarType.BOOL:
      return (v: boolean) => (v === true ? "true" : v === false ? "false" : unsupported());
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return (v: bigint) => {
        if (typeof v !== "bigint") unsupported();
        return `"${v}"`;
      };
    case ScalarType.BYTES:
      return (v: Uint8Array) => {
        if (!(v instanceof Uint8Array)) unsupported();
        return `"${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("base64")}"`;
      };
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return (v: number) => {
        if (typeof v !== "number") unsupported();
        // A float is 32 bits on the wire.
        const n = type === ScalarType.FLOAT ? Math.fround(v) : v;
        if (Number.isNaN(n)) return '"NaN"';
        if (n === Number.POSITIVE_INFINITY) return '"Infinity"';
        if (n === Number.NEGATIVE_INFINITY) return '"-Infinity"';
        return JSON.stringify(n);
      };
    default:
      // The 32-bit integers.
      return (v: number) => {
        if (typeof v !== "number" || !Number.isInteger(v)) unsupported();
        return String(v);
      };
  }
}
