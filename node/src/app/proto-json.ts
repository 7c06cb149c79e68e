import {
  clone,
  type DescMessage,
  equals,
  fromJson,
  type JsonValue,
  type JsonWriteOptions,
  type MessageShape,
  toJson,
} from "@bufbuild/protobuf";
import { rewriteAnyTypeUrls } from "./any-namespace.js";
import type { Namespace } from "./namespace.js";
import type { TypeRegistry } from "./type-registry.js";

/** protojson as Cosmos gateways and genesis files print it: proto field names, defaults emitted. */
export const PROTO_JSON_WRITE: Partial<JsonWriteOptions> = {
  useProtoFieldName: true,
  alwaysEmitImplicit: true,
};

/**
 * Parses protojson (a tx file, a gentx, a proposal) into a message whose Any type URLs are Cosmos-style
 * `/name` (protojson would give `type.googleapis.com/…`, which changes the signed bytes), in the namespace the
 * JSON used: a file written by Cosmos tooling with `/cosmos.…` URLs keeps them, so its signatures still hold.
 */
export function fromProtoJson<D extends DescMessage>(
  schema: D,
  json: JsonValue,
  types: TypeRegistry,
): MessageShape<D> {
  const ns = JSON.stringify(json).includes('"@type":"/cosmos.') ? "cosmos" : "sdk";
  const msg = fromJson(schema, retype(json, "cosmos", "sdk"), { registry: types.registry });
  rewriteAnyTypeUrls(schema, msg, ns, types);
  return msg;
}

/**
 * protojson of a message holding Anys in either namespace (a tx file): rendered with our registry, then with
 * the type URLs of the namespace the message used; unset message fields print as `null`, as Cosmos does.
 */
export function toProtoJson<D extends DescMessage>(
  schema: D,
  msg: MessageShape<D>,
  types: TypeRegistry,
): JsonValue {
  const copy = clone(schema, msg);
  rewriteAnyTypeUrls(schema, copy, "sdk", types);
  const json = toJson(schema, copy, { ...PROTO_JSON_WRITE, registry: types.registry });
  return withNulls(
    anyNamespace(schema, msg, types) === "cosmos" ? retype(json, "sdk", "cosmos") : json,
    schema,
  );
}

/** `@type` values of a JSON document moved from one namespace to the other. */
function retype(v: unknown, from: "sdk" | "cosmos", to: "sdk" | "cosmos"): JsonValue {
  if (Array.isArray(v)) return v.map((x) => retype(x, from, to));
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [
        k,
        k === "@type" && typeof x === "string" ? x.replace(`/${from}.`, `/${to}.`) : retype(x, from, to),
      ]),
    );
  return v as JsonValue;
}

/** Message fields left unset appear as `null` (protojson omits them), at every level of known messages. */
function withNulls(v: JsonValue, desc: DescMessage): JsonValue {
  if (!v || typeof v !== "object" || Array.isArray(v)) return v;
  const out: Record<string, JsonValue> = { ...(v as Record<string, JsonValue>) };
  for (const f of desc.fields) {
    if (f.fieldKind !== "message" || f.message.typeName.startsWith("google.protobuf.")) continue;
    out[f.name] = f.name in out ? withNulls(out[f.name], f.message) : null;
  }
  return out;
}

/** The namespace a message's Anys use: `cosmos` when any of them names a cosmos.* type. */
export function anyNamespace<D extends DescMessage>(
  schema: D,
  msg: MessageShape<D>,
  types: TypeRegistry,
): Namespace {
  const copy = clone(schema, msg);
  rewriteAnyTypeUrls(schema, copy, "sdk", types);
  return equals(schema, copy, msg) ? "sdk" : "cosmos";
}
