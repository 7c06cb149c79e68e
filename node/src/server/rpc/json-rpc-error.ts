/** JSON-RPC 2.0's error codes, the ones CometBFT answers with. */
export const JsonRpcErrorCode = {
  /** The body is not JSON. */
  PARSE_ERROR: -32700,
  /** JSON, but no JSON-RPC 2.0 request (or a batch, body or HTTP method the server refuses). */
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  /** CometBFT answers every failure inside a method with it, "not found" included. */
  INTERNAL_ERROR: -32603,
  /** A subscription the server ended (its client too slow, or the node stopping). */
  SERVER_ERROR: -32000,
} as const;

export type JsonRpcErrorCode = (typeof JsonRpcErrorCode)[keyof typeof JsonRpcErrorCode];

/** A JSON-RPC error with its code, the code's standard message, and a detail for `data`. */
export class JsonRpcError extends Error {
  private constructor(
    readonly code: JsonRpcErrorCode,
    message: string,
    readonly data = "",
  ) {
    super(message);
  }

  static parseError(detail: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.PARSE_ERROR, "Parse error. Invalid JSON", detail);
  }

  static invalidRequest(detail: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.INVALID_REQUEST, "Invalid Request", detail);
  }

  static methodNotFound(detail: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.METHOD_NOT_FOUND, "Method not found", detail);
  }

  static invalidParams(detail: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, "Invalid params", detail);
  }

  static internal(detail: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.INTERNAL_ERROR, "Internal error", detail);
  }

  static server(detail: string): JsonRpcError {
    return new JsonRpcError(JsonRpcErrorCode.SERVER_ERROR, "Server error", detail);
  }
}

/** A JSON-RPC request's id, as answers repeat it. */
export type RpcId = string | number | null;

/** The id a request names; null when it names none or an id of the wrong type. */
export function requestId(msg: unknown): RpcId {
  const id = (msg as { id?: unknown } | null)?.id;
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** A JSON-RPC 2.0 error answer to the request with `id`. */
export function errorAnswer(id: RpcId, e: JsonRpcError) {
  return { jsonrpc: "2.0", id, error: { code: e.code, message: e.message, data: e.data } };
}
