import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type ServerReflectionRequest,
  ServerReflectionRequestSchema,
  type ServerReflectionResponse,
  ServerReflectionResponseSchema,
} from "@chaind/proto/grpc/reflection/v1/reflection_pb";
import type { MethodDefinition, ServerDuplexStream, ServiceDefinition } from "@grpc/grpc-js";
import type { DescriptorIndex } from "./descriptor-index.js";

const NOT_FOUND = 5;
const UNIMPLEMENTED = 12;

const raw = (b: Buffer) => b;

/** The reflection service under both names clients use (v1 and the older v1alpha share their messages). */
export const REFLECTION_SERVICES = [
  "grpc.reflection.v1.ServerReflection",
  "grpc.reflection.v1alpha.ServerReflection",
];

export function reflectionDefinition(serviceName: string): ServiceDefinition {
  const def: Record<string, MethodDefinition<Buffer, Buffer>> = {
    ServerReflectionInfo: {
      path: `/${serviceName}/ServerReflectionInfo`,
      requestStream: true,
      responseStream: true,
      requestSerialize: raw,
      requestDeserialize: raw,
      responseSerialize: raw,
      responseDeserialize: raw,
    },
  };
  return def as ServiceDefinition;
}

/** Answers each reflection request on the stream in order: service lists and file descriptors. */
export function reflectionHandler(index: () => DescriptorIndex, serviceNames: () => readonly string[]) {
  return (call: ServerDuplexStream<Buffer, Buffer>) => {
    call.on("data", (bytes: Buffer) => {
      let req: ServerReflectionRequest;
      try {
        req = fromBinary(ServerReflectionRequestSchema, bytes);
      } catch (e) {
        call.destroy(new Error(`bad reflection request: ${(e as Error).message}`));
        return;
      }
      call.write(Buffer.from(toBinary(ServerReflectionResponseSchema, answer(req, index(), serviceNames))));
    });
    call.on("end", () => call.end());
    call.on("error", () => {});
  };
}

function answer(
  req: ServerReflectionRequest,
  index: DescriptorIndex,
  serviceNames: () => readonly string[],
): ServerReflectionResponse {
  const base = { validHost: req.host, originalRequest: req };
  const error = (errorCode: number, errorMessage: string) =>
    create(ServerReflectionResponseSchema, {
      ...base,
      messageResponse: { case: "errorResponse", value: { errorCode, errorMessage } },
    });
  const files = (found: ReturnType<DescriptorIndex["fileByName"]>, what: string) =>
    found
      ? create(ServerReflectionResponseSchema, {
          ...base,
          messageResponse: {
            case: "fileDescriptorResponse",
            value: { fileDescriptorProto: index.withDependencies(found) },
          },
        })
      : error(NOT_FOUND, `${what} not found`);
  const r = req.messageRequest;
  switch (r.case) {
    case "listServices":
      return create(ServerReflectionResponseSchema, {
        ...base,
        messageResponse: {
          case: "listServicesResponse",
          value: { service: serviceNames().map((name) => ({ name })) },
        },
      });
    case "fileByFilename":
      return files(index.fileByName(r.value), `file ${r.value}`);
    case "fileContainingSymbol":
      return files(index.fileOfSymbol(r.value), `symbol ${r.value}`);
    case "fileContainingExtension":
    case "allExtensionNumbersOfType":
      return error(NOT_FOUND, "extensions are not indexed");
    default:
      return error(UNIMPLEMENTED, "unknown reflection request");
  }
}
