import {
  type DescField,
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

/** What fillNulls does with each field of a message, worked out once per message type. */
interface FieldStep {
  name: string;
  kind: "legacy-dec" | "bytes" | "message" | "message-list" | "message-map" | "none";
  field: DescField;
  /** Set for a field that holds messages. */
  message?: DescMessage;
  /** A singular message field outside a oneof: what it prints as when unset. */
  unset?: JsonValue;
}

interface MessagePlan {
  steps: FieldStep[];
  /** Field names by declaration order, to put keys in it. */
  rank: Map<string, number>;
}

const plans = new WeakMap<DescMessage, MessagePlan>();

/** The per-field steps of a message type (reading field options costs far more than using the answer). */
function planOf(desc: DescMessage): MessagePlan {
  let plan = plans.get(desc);
  if (plan) return plan;
  const steps = desc.fields.map((f): FieldStep => {
    const base = { name: f.name, field: f };
    if (isLegacyDecField(f)) return { ...base, kind: "legacy-dec" };
    if (f.fieldKind === "scalar" && f.scalar === ScalarType.BYTES)
      return { ...base, kind: f.oneof ? "none" : "bytes" };
    if (f.fieldKind === "message")
      return {
        ...base,
        kind: "message",
        message: f.message,
        unset: f.oneof ? undefined : unsetMessageJson(f),
      };
    if (f.fieldKind === "list" && f.listKind === "message")
      return { ...base, kind: "message-list", message: f.message };
    if (f.fieldKind === "map" && f.mapKind === "message")
      return { ...base, kind: "message-map", message: f.message };
    return { ...base, kind: "none" };
  });
  plan = { steps, rank: new Map(desc.fields.map((f, i) => [f.name, i])) };
  plans.set(desc, plan);
  return plan;
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
  const plan = planOf(desc);
  for (const step of plan.steps) {
    const v = json[step.name];
    switch (step.kind) {
      case "legacy-dec":
        if (typeof v === "string") json[step.name] = legacyDecJson(step.field, v);
        break;
      case "bytes":
        if (v === "") json[step.name] = null;
        break;
      case "message":
        if (v === undefined) {
          if (step.unset !== undefined) json[step.name] = step.unset;
        } else fillNulls(step.message!, v, registry);
        break;
      case "message-list":
        if (Array.isArray(v)) for (const item of v) fillNulls(step.message!, item, registry);
        break;
      case "message-map":
        if (isObject(v)) for (const item of Object.values(v)) fillNulls(step.message!, item, registry);
        break;
    }
  }
  inFieldOrder(plan.rank, json);
}

/** Keys in the order of the message's fields, as Go's JSON prints a struct; the nulls filled in go in place. */
function inFieldOrder(order: Map<string, number>, json: JsonObject): void {
  const rank = (k: string) => order.get(k) ?? (k === "@type" ? -1 : order.size);
  const keys = Object.keys(json);
  let ordered = true;
  for (let i = 1; i < keys.length && ordered; i++) ordered = rank(keys[i - 1]) <= rank(keys[i]);
  if (ordered) return;
  const entries = Object.entries(json);
  const sorted = [...entries].sort(([a], [b]) => rank(a) - rank(b));
  for (const [k] of entries) delete json[k];
  for (const [k, v] of sorted) json[k] = v;
}
