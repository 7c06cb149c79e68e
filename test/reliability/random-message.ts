import {
  clone,
  create,
  type DescField,
  type DescMessage,
  type Message,
  ScalarType,
} from "@bufbuild/protobuf";
import fc from "fast-check";

/** fast-check's in-property generator (`fc.gen()`), as the builders below take it. */
export type Gen = fc.GeneratorValue;

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const UINT64 = { min: 0n, max: 2n ** 64n - 1n };

/** A value for one scalar field: in range for its wire type, often one of `strings` for a string field. */
function scalarValue(g: Gen, scalar: ScalarType, strings: Strings, field: string): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return g(fc.boolean)
        ? g(fc.constantFrom, ...stringsFor(strings, field))
        : g(fc.string, { maxLength: 24 });
    case ScalarType.BYTES:
      return g(() =>
        fc.oneof(
          fc.uint8Array({ maxLength: 12 }),
          fc.constant(new Uint8Array(8)),
          fc.uint8Array({ minLength: 8, maxLength: 8 }),
        ),
      );
    case ScalarType.BOOL:
      return g(fc.boolean);
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return g(() => fc.oneof(fc.bigInt(INT64), fc.bigInt({ min: -2n, max: 200n })));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return g(() => fc.oneof(fc.bigInt(UINT64), fc.bigInt({ min: 0n, max: 200n })));
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return g(fc.nat, { max: 2 ** 32 - 1 });
    case ScalarType.DOUBLE:
    case ScalarType.FLOAT:
      return g(fc.double);
    default:
      return g(fc.integer, { min: -(2 ** 31), max: 2 ** 31 - 1 });
  }
}

/** Candidate strings for all fields, or per field name (`denom` -> ["stake"]) falling back to `any`. */
export type Strings =
  | readonly string[]
  | { byField: Record<string, readonly string[]>; any: readonly string[] };

function hinted(strings: Strings, field: string): boolean {
  return !Array.isArray(strings) && field in (strings as Exclude<Strings, readonly string[]>).byField;
}

function stringsFor(strings: Strings, field: string): readonly string[] {
  if (Array.isArray(strings)) return strings;
  const s = strings as Exclude<Strings, readonly string[]>;
  return s.byField[field] ?? s.any;
}

function fieldValue(g: Gen, f: DescField, strings: Strings, depth: number): unknown {
  const one = (kind: "scalar" | "enum" | "message"): unknown => {
    if (kind === "enum") return g(fc.integer, { min: -1, max: 8 });
    if (kind === "message") {
      const desc = f.message as DescMessage;
      return depth < 2 ? randomMessage(g, desc, strings, depth + 1) : create(desc);
    }
    return scalarValue(g, f.scalar as ScalarType, strings, f.name);
  };
  if (f.fieldKind === "list") return Array.from({ length: g(fc.nat, { max: 2 }) }, () => one(f.listKind));
  return one(f.fieldKind as "scalar" | "enum" | "message");
}

/**
 * A random instance of any request message: each field left at its default or set to a random value of its
 * type (strings often from `strings`, e.g. real addresses and denoms, per field name if given), nested messages
 * two levels deep.
 * Map and oneof fields stay unset.
 */
export function randomMessage(g: Gen, desc: DescMessage, strings: Strings, depth = 0): Message {
  const msg = create(desc) as unknown as Record<string, unknown>;
  for (const f of desc.fields) {
    if (f.oneof || f.fieldKind === "map") continue;
    // A field with named candidates is set nine times in ten, any other half the time.
    if (g(fc.nat, { max: 9 }) >= (hinted(strings, f.name) ? 9 : 5)) continue;
    msg[f.localName] = fieldValue(g, f, strings, depth);
  }
  return msg as unknown as Message;
}

/**
 * A copy of a valid message with one field, picked at random at any depth (into nested messages and list
 * items), replaced by a random value of its type: near-valid input that reaches past the first validation.
 */
export function mutateOneField(g: Gen, desc: DescMessage, msg: Message, strings: Strings): Message {
  const copy = clone(desc, msg) as unknown as Record<string, unknown>;
  const fields = desc.fields.filter((f) => !f.oneof && f.fieldKind !== "map");
  if (fields.length === 0) return copy as unknown as Message;
  // By index: fc.gen compares its arguments, and descriptors are cyclic.
  const f = fields[g(fc.nat, { max: fields.length - 1 })];
  const current = copy[f.localName];
  const descend = g(fc.boolean);
  if (descend && f.fieldKind === "message" && current)
    copy[f.localName] = mutateOneField(g, f.message, current as Message, strings);
  else if (
    descend &&
    f.fieldKind === "list" &&
    f.listKind === "message" &&
    (current as Message[]).length > 0
  ) {
    const items = [...(current as Message[])];
    const i = g(fc.nat, { max: items.length - 1 });
    items[i] = mutateOneField(g, f.message, items[i], strings);
    copy[f.localName] = items;
  } else copy[f.localName] = fieldValue(g, f, strings, 1);
  return copy as unknown as Message;
}
