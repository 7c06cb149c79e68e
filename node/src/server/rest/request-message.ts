import {
  create,
  type DescField,
  type DescMessage,
  fromJson,
  type JsonObject,
  type JsonValue,
  type Message,
  type Registry,
  ScalarType,
} from "@bufbuild/protobuf";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";

/** What a REST request carries towards its RPC's request message. */
export interface RequestParts {
  /** Path variables by (possibly dotted) field path. */
  path: ReadonlyMap<string, string>;
  query: URLSearchParams;
  /** The route's body binding ("" none, "*" whole request, else one field) and the parsed JSON body. */
  bodyField: string;
  body?: JsonValue;
}

/** Well-known message types whose JSON form is a single string, so a query parameter can carry them. */
const STRING_JSON_MESSAGES = new Set([
  "google.protobuf.Timestamp",
  "google.protobuf.Duration",
  "google.protobuf.FieldMask",
]);

const badInput = (detail: string) => ChainError.wrap(SdkErrors.InvalidRequest, detail);

/**
 * Builds an RPC's request message the way grpc-gateway does: the JSON body (whole request or one field),
 * then query parameters (dotted names for nested fields, repeated keys for repeated fields, enums by name or
 * number, unknown names ignored), then path variables, which win. Bad values are InvalidArgument errors.
 */
export function requestMessage(desc: DescMessage, parts: RequestParts, registry: Registry): Message {
  // Most GETs carry nothing at all: the empty request, without a JSON detour.
  if (parts.body === undefined && parts.query.size === 0) {
    const init = stringFieldsOnly(desc, parts.path);
    if (init) return create(desc, init);
  }
  let json: JsonObject = {};
  if (parts.bodyField === "*") {
    if (parts.body !== undefined) {
      if (parts.body === null || typeof parts.body !== "object" || Array.isArray(parts.body))
        throw badInput(`request body must be a JSON object for ${desc.typeName}`);
      json = { ...parts.body };
    }
  } else if (parts.bodyField !== "" && parts.body !== undefined) {
    json[parts.bodyField] = parts.body;
  }
  if (parts.bodyField !== "*") {
    for (const key of new Set(parts.query.keys())) {
      if (parts.path.has(key) || key === parts.bodyField) continue;
      setField(json, desc, key, parts.query.getAll(key), false);
    }
  }
  for (const [key, value] of parts.path) setField(json, desc, key, [value], true);
  try {
    return fromJson(desc, json, { registry });
  } catch (e) {
    throw badInput(`cannot read ${desc.typeName} from the request: ${(e as Error).message}`);
  }
}

/**
 * Path variables that each name a top-level string field (`{address}`) as the message's init, or undefined: such
 * a value is the field's value as it is, so the JSON detour would give the same message.
 */
function stringFieldsOnly(
  desc: DescMessage,
  path: ReadonlyMap<string, string>,
): Record<string, string> | undefined {
  const init: Record<string, string> = {};
  for (const [key, value] of path) {
    const field = fieldByName(desc, key);
    if (field?.fieldKind !== "scalar" || field.scalar !== ScalarType.STRING || field.oneof) return undefined;
    init[field.localName] = value;
  }
  return init;
}

function fieldByName(desc: DescMessage, name: string): DescField | undefined {
  return desc.fields.find((f) => f.name === name || f.jsonName === name);
}

/** Sets a dotted field path from text values; unknown names are skipped unless `strict` (path variables). */
function setField(
  json: JsonObject,
  desc: DescMessage,
  path: string,
  values: string[],
  strict: boolean,
): void {
  const names = path.split(".");
  let target = json;
  let msg = desc;
  for (let i = 0; i < names.length; i++) {
    const field = fieldByName(msg, names[i]);
    if (!field) {
      if (strict) throw badInput(`${msg.typeName} has no field ${JSON.stringify(names[i])}`);
      return;
    }
    const last = i === names.length - 1;
    if (!last) {
      if (field.fieldKind !== "message" || STRING_JSON_MESSAGES.has(field.message.typeName)) {
        if (strict) throw badInput(`${msg.typeName}.${field.name} is not a message`);
        return;
      }
      const next = target[field.name];
      const obj: JsonObject = next && typeof next === "object" && !Array.isArray(next) ? next : {};
      target[field.name] = obj;
      target = obj;
      msg = field.message;
      continue;
    }
    if (field.fieldKind === "list") {
      target[field.name] = values.map((v) => textValue(field, v));
      return;
    }
    if (field.fieldKind === "map") {
      if (strict) throw badInput(`map field ${field.name} cannot be set from a URL`);
      return;
    }
    if (field.fieldKind === "message" && !STRING_JSON_MESSAGES.has(field.message.typeName)) {
      if (strict) throw badInput(`message field ${field.name} cannot be set from a URL`);
      return;
    }
    target[field.name] = textValue(field, values[values.length - 1]);
  }
}

/** A URL text as the JSON value protojson expects for the field (numbers and bytes stay strings). */
function textValue(field: DescField, text: string): JsonValue {
  const kind = field.fieldKind === "list" ? field.listKind : field.fieldKind;
  if (kind === "enum" && "enum" in field && field.enum) {
    // As grpc-gateway: an enum by its full proto name or by the number of one of its values.
    const known = /^-?\d+$/.test(text)
      ? field.enum.values.find((v) => v.number === Number(text))
      : field.enum.values.find((v) => v.name === text);
    if (!known) throw badInput(`${field.name}: ${JSON.stringify(text)} is not a valid ${field.enum.name}`);
    return known.name;
  }
  if (kind === "scalar" && isBool(field)) {
    if (text === "true" || text === "1") return true;
    if (text === "false" || text === "0") return false;
    throw badInput(`${field.name} must be true or false, got ${JSON.stringify(text)}`);
  }
  return text;
}

function isBool(field: DescField): boolean {
  return "scalar" in field && field.scalar === ScalarType.BOOL;
}
