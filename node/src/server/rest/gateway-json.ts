import {
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
  type Registry,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { isLegacyDecField, legacyDecJson } from "../../app/legacy-dec-field.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";
import { unsetMessageJson } from "../../app/zero-timestamps.js";

/**
 * A response as Cosmos gateways print it: protojson with proto field names and defaults, plus `null` for an
 * unset message field (`{"plan": null}`) and for empty bytes (`"next_key": null`), as gogoproto's JSON
 * prints Go's nil values, where protobuf-es leaves the field out or prints ""; a non-nullable time prints the
 * zero time; keys in field order, an Any's "@type" first. A field marked `sdk.LegacyDec` prints as the decimal
 * it holds, as gogoproto's custom type does.
 */
export function gatewayJson(desc: DescMessage, message: Message, registry: Registry): JsonValue {
  const json = toJson(desc, message, { ...PROTO_JSON_WRITE, registry });
  fillNulls(desc, json, registry);
  return json;
}

function isObject(v: JsonValue | undefined): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function fillNulls(desc: DescMessage, json: JsonValue, registry: Registry): void {
  if (!isObject(json)) return;
  if (desc.typeName === "google.protobuf.Any") {
    const typeUrl = json["@type"];
    if (typeof typeUrl !== "string") return;
    // Cosmos prints "@type" first; protobuf-es appends it.
    const fields = Object.entries(json).filter(([k]) => k !== "@type");
    for (const [k] of fields) delete json[k];
    for (const [k, v] of fields) json[k] = v;
    const inner = registry.getMessage(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
    if (inner) fillNulls(inner, json, registry);
    return;
  }
  // Other well-known types print as strings, numbers or their own shapes.
  if (desc.typeName.startsWith("google.protobuf.")) return;
  for (const f of desc.fields) {
    const v = json[f.name];
    if (typeof v === "string" && isLegacyDecField(f)) {
      json[f.name] = legacyDecJson(f, v);
    } else if (f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES) {
      if (v === "" && !f.oneof) json[f.name] = null;
    } else if (f.fieldKind === "message") {
      if (v === undefined) {
        if (!f.oneof) json[f.name] = unsetMessageJson(f);
      } else fillNulls(f.message, v, registry);
    } else if (f.fieldKind === "list" && f.listKind === "message" && Array.isArray(v)) {
      for (const item of v) fillNulls(f.message, item, registry);
    } else if (f.fieldKind === "map" && f.mapKind === "message" && isObject(v)) {
      for (const item of Object.values(v)) fillNulls(f.message, item, registry);
    }
  }
  inFieldOrder(desc, json);
}

/** Keys in the order of the message's fields, as Go's JSON prints a struct; the nulls filled in go in place. */
function inFieldOrder(desc: DescMessage, json: JsonObject): void {
  const order = new Map(desc.fields.map((f, i) => [f.name, i]));
  const entries = Object.entries(json);
  const rank = (k: string) => order.get(k) ?? (k === "@type" ? -1 : order.size);
  const sorted = [...entries].sort(([a], [b]) => rank(a) - rank(b));
  if (sorted.every(([k], i) => k === entries[i][0])) return;
  for (const [k] of entries) delete json[k];
  for (const [k, v] of sorted) json[k] = v;
}
