import {
  type DescField,
  type DescMessage,
  getOption,
  type JsonObject,
  type JsonValue,
  type Message,
  type Registry,
  ScalarType,
  toJson,
} from "@bufbuild/protobuf";
import { scalar } from "@chaind/proto/sdk/scalar/v1/scalar_pb";
import { formatDec } from "../../app/dec.js";
import { PROTO_JSON_WRITE } from "../../app/proto-json.js";

/**
 * A response as Cosmos gateways print it: protojson with proto field names and defaults, plus `null` for an
 * unset message field (`{"plan": null}`) and for empty bytes (`"next_key": null`), as gogoproto's JSON
 * prints Go's nil values, where protobuf-es leaves the field out or prints ""; an Any's "@type" comes first.
 * A field marked `sdk.LegacyDec` holds a decimal's scaled digits and prints as the decimal, as gogoproto's
 * custom type does.
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
    if (typeof v === "string" && getOption(f, scalar) === "sdk.LegacyDec") {
      json[f.name] = legacyDecJson(f, v);
    } else if (f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES) {
      if (v === "" && !f.oneof) json[f.name] = null;
    } else if (f.fieldKind === "message") {
      if (v === undefined) {
        if (!f.oneof) json[f.name] = null;
      } else fillNulls(f.message, v, registry);
    } else if (f.fieldKind === "list" && f.listKind === "message" && Array.isArray(v)) {
      for (const item of v) fillNulls(f.message, item, registry);
    } else if (f.fieldKind === "map" && f.mapKind === "message" && isObject(v)) {
      for (const item of Object.values(v)) fillNulls(f.message, item, registry);
    }
  }
}

/** The digits of a decimal scaled by 10^18 (as text, or as the ASCII bytes of it in base64) as the decimal. */
function legacyDecJson(f: DescField, v: string): string {
  const digits =
    f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES ? Buffer.from(v, "base64").toString() : v;
  return /^\d+$/.test(digits) ? formatDec(BigInt(digits)) : v;
}
