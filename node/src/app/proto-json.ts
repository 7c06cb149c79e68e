import type { JsonWriteOptions } from "@bufbuild/protobuf";

/** protojson as Cosmos gateways and genesis files print it: proto field names, defaults emitted. */
export const PROTO_JSON_WRITE: Partial<JsonWriteOptions> = {
  useProtoFieldName: true,
  alwaysEmitImplicit: true,
};
