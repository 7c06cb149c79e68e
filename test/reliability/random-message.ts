import { create, type DescField, type DescMessage, type Message, ScalarType } from "@bufbuild/protobuf";
import fc from "fast-check";

/** fast-check's in-property generator (`fc.gen()`), as the builders below take it. */
export type Gen = fc.GeneratorValue;

const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };
const UINT64 = { min: 0n, max: 2n ** 64n - 1n };

/** A value for one scalar field: in range for its wire type, often one of `strings` for a string field. */
function scalarValue(g: Gen, scalar: ScalarType, strings: readonly string[]): unknown {
  switch (scalar) {
    case ScalarType.STRING:
      return g(fc.boolean) ? g(fc.constantFrom, ...strings) : g(fc.string, { maxLength: 24 });
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

function fieldValue(g: Gen, f: DescField, strings: readonly string[], depth: number): unknown {
  const one = (kind: "scalar" | "enum" | "message"): unknown => {
    if (kind === "enum") return g(fc.integer, { min: -1, max: 8 });
    if (kind === "message") {
      const desc = f.message as DescMessage;
      return depth < 2 ? randomMessage(g, desc, strings, depth + 1) : create(desc);
    }
    return scalarValue(g, f.scalar as ScalarType, strings);
  };
  if (f.fieldKind === "list") return Array.from({ length: g(fc.nat, { max: 2 }) }, () => one(f.listKind));
  return one(f.fieldKind as "scalar" | "enum" | "message");
}

/**
 * A random instance of any request message: each field left at its default or set to a random value of its
 * type (strings often from `strings`, e.g. real addresses and denoms), nested messages two levels deep.
 * Map and oneof fields stay unset.
 */
export function randomMessage(g: Gen, desc: DescMessage, strings: readonly string[], depth = 0): Message {
  const msg = create(desc) as unknown as Record<string, unknown>;
  for (const f of desc.fields) {
    if (f.oneof || f.fieldKind === "map" || !g(fc.boolean)) continue;
    msg[f.localName] = fieldValue(g, f, strings, depth);
  }
  return msg as unknown as Message;
}
