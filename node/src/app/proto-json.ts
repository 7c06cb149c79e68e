import {
  type DescMessage,
  fromJson,
  type JsonValue,
  type JsonWriteOptions,
  type MessageShape,
} from "@bufbuild/protobuf";
import { rewriteAnyTypeUrls } from "./any-namespace.js";
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
  const msg = fromJson(schema, cosmosToSdk(json) as JsonValue, { registry: types.registry });
  rewriteAnyTypeUrls(schema, msg, ns, types);
  return msg;
}

function cosmosToSdk(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(cosmosToSdk);
  if (v && typeof v === "object")
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>).map(([k, x]) => [
        k,
        k === "@type" && typeof x === "string" ? x.replace(/^\/cosmos\./, "/sdk.") : cosmosToSdk(x),
      ]),
    );
  return v;
}
