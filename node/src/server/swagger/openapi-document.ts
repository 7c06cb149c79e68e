import { type DescField, type DescMessage, ScalarType } from "@bufbuild/protobuf";
import { isLegacyDecField } from "../../app/legacy-dec-field.js";
import { BLOCK_HEIGHT_HEADERS } from "../grpc/block-height-header.js";
import { grpcMethodName, type RestRoute } from "../rest/rest-routes.js";

type Schema = Record<string, unknown>;

/** Nested query parameters are listed this deep (`pagination.limit`); deeper fields are left to the body. */
const MAX_QUERY_DEPTH = 3;

/** JSON forms of well-known types, as protojson prints them. */
const WELL_KNOWN: Record<string, Schema> = {
  "google.protobuf.Timestamp": { type: "string", format: "date-time" },
  "google.protobuf.Duration": { type: "string", example: "1.5s" },
  "google.protobuf.Any": {
    type: "object",
    properties: { "@type": { type: "string" } },
    additionalProperties: true,
  },
};

/**
 * The OpenAPI 3 document of the REST gateway, built from the same route list the gateway serves, so an
 * annotated RPC gets its Swagger entry with no other code.
 */
export function openApiDocument(
  routes: readonly RestRoute[],
  info: { title: string; version: string },
): Schema {
  const schemas: Record<string, Schema> = {
    Status: {
      type: "object",
      properties: {
        code: { type: "integer", format: "int32" },
        message: { type: "string" },
        details: { type: "array", items: { $ref: "#/components/schemas/google.protobuf.Any" } },
      },
    },
    "google.protobuf.Any": WELL_KNOWN["google.protobuf.Any"],
  };
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of routes) {
    const op: Schema = {
      operationId: grpcMethodName(route).replace(/[./]/g, "_"),
      summary: route.rpc.name,
      description: `gRPC: ${grpcMethodName(route)}. Also served under /cosmos/ in place of /sdk/.`,
      tags: [route.service.typeName],
      parameters: [
        ...route.path.fields.map((f) => ({
          name: f,
          in: "path",
          required: true,
          schema: leafSchema(route.rpc.input, f, schemas),
        })),
        ...(route.body === "" ? queryParameters(route.rpc.input, new Set(route.path.fields), schemas) : []),
        {
          name: BLOCK_HEIGHT_HEADERS[0],
          in: "header",
          required: false,
          description: "Answer from the state at this block height (0 or absent: latest).",
          schema: { type: "string", format: "int64" },
        },
      ],
      responses: {
        "200": {
          description: "A successful response.",
          content: { "application/json": { schema: ref(route.rpc.output, schemas) } },
        },
        default: {
          description: "An error: the gRPC status code, a message and details.",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Status" } } },
        },
      },
    };
    if (route.body !== "") {
      const bodySchema =
        route.body === "*" ? ref(route.rpc.input, schemas) : leafSchema(route.rpc.input, route.body, schemas);
      op.requestBody = { required: true, content: { "application/json": { schema: bodySchema } } };
    }
    // OpenAPI names a variable without its pattern: `{name=**}` -> `{name}`.
    const path = route.path.template.replace(/\{([^}=]+)=[^}]*\}/g, "{$1}");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.0.3",
    info: { title: info.title, version: info.version },
    servers: [{ url: "/" }],
    paths,
    components: { schemas },
  };
}

function ref(desc: DescMessage, schemas: Record<string, Schema>): Schema {
  addSchema(desc, schemas);
  return { $ref: `#/components/schemas/${desc.typeName}` };
}

function addSchema(desc: DescMessage, schemas: Record<string, Schema>): void {
  if (schemas[desc.typeName]) return;
  const known = WELL_KNOWN[desc.typeName];
  if (known) {
    schemas[desc.typeName] = known;
    return;
  }
  const properties: Record<string, Schema> = {};
  // Set before recursing so self-referencing messages end.
  schemas[desc.typeName] = { type: "object", properties };
  for (const f of desc.fields) properties[f.name] = fieldSchema(f, schemas);
}

function fieldSchema(f: DescField, schemas: Record<string, Schema>): Schema {
  switch (f.fieldKind) {
    case "scalar":
      return isLegacyDecField(f)
        ? { type: "string", example: "0.500000000000000000" }
        : scalarSchema(f.scalar);
    case "enum":
      return { type: "string", enum: f.enum.values.map((v) => v.name) };
    case "message":
      return ref(f.message, schemas);
    case "list":
      return {
        type: "array",
        items:
          f.listKind === "scalar"
            ? scalarSchema(f.scalar)
            : f.listKind === "enum"
              ? { type: "string", enum: f.enum.values.map((v) => v.name) }
              : ref(f.message, schemas),
      };
    case "map":
      return {
        type: "object",
        additionalProperties:
          f.mapKind === "scalar"
            ? scalarSchema(f.scalar)
            : f.mapKind === "enum"
              ? { type: "string" }
              : ref(f.message, schemas),
      };
  }
}

function scalarSchema(t: ScalarType): Schema {
  switch (t) {
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: "string", format: "int64" };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "string", format: "uint64" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", format: "int64" };
    case ScalarType.DOUBLE:
      return { type: "number", format: "double" };
    case ScalarType.FLOAT:
      return { type: "number", format: "float" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", format: "byte" };
    default:
      return { type: "string" };
  }
}

/** The schema of a dotted field path of a message (path variables, body fields). */
function leafSchema(desc: DescMessage, path: string, schemas: Record<string, Schema>): Schema {
  let msg = desc;
  const names = path.split(".");
  for (let i = 0; i < names.length; i++) {
    const f = msg.fields.find((x) => x.name === names[i]);
    if (!f) return { type: "string" };
    if (i === names.length - 1) return fieldSchema(f, schemas);
    if (f.fieldKind !== "message") return { type: "string" };
    msg = f.message;
  }
  return { type: "string" };
}

/** Query parameters for every field not bound by the path, nested messages as dotted names. */
function queryParameters(
  desc: DescMessage,
  bound: ReadonlySet<string>,
  schemas: Record<string, Schema>,
  prefix = "",
  depth = 0,
): Schema[] {
  const out: Schema[] = [];
  for (const f of desc.fields) {
    const name = prefix + f.name;
    if (bound.has(name)) continue;
    if (f.fieldKind === "map") continue;
    if (f.fieldKind === "message" && f.message.typeName === "google.protobuf.Any") continue;
    if (f.fieldKind === "message" && !WELL_KNOWN[f.message.typeName]) {
      if (depth + 1 < MAX_QUERY_DEPTH)
        out.push(...queryParameters(f.message, bound, schemas, `${name}.`, depth + 1));
      continue;
    }
    if (f.fieldKind === "list" && f.listKind === "message") continue;
    const schema = fieldSchema(f, schemas);
    out.push({
      name,
      in: "query",
      required: false,
      schema,
      ...(f.fieldKind === "list" ? { style: "form", explode: true } : {}),
    });
  }
  return out;
}
