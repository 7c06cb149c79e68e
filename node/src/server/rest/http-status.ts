import { GrpcCode } from "../../errors/grpc-code.js";

/** grpc-gateway's table from a gRPC status code to an HTTP status. */
export function httpStatusOf(code: GrpcCode): number {
  switch (code) {
    case GrpcCode.OK:
      return 200;
    case GrpcCode.CANCELLED:
      return 499;
    case GrpcCode.INVALID_ARGUMENT:
    case GrpcCode.FAILED_PRECONDITION:
    case GrpcCode.OUT_OF_RANGE:
      return 400;
    case GrpcCode.UNAUTHENTICATED:
      return 401;
    case GrpcCode.PERMISSION_DENIED:
      return 403;
    case GrpcCode.NOT_FOUND:
      return 404;
    case GrpcCode.ALREADY_EXISTS:
    case GrpcCode.ABORTED:
      return 409;
    case GrpcCode.RESOURCE_EXHAUSTED:
      return 429;
    case GrpcCode.UNIMPLEMENTED:
      return 501;
    case GrpcCode.UNAVAILABLE:
      return 503;
    case GrpcCode.DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}
