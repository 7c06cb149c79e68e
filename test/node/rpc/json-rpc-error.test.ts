import { describe, expect, it } from "vitest";
import { JsonRpcError, JsonRpcErrorCode } from "../../../node/src/server/rpc/json-rpc-error.js";

describe("JSON-RPC error codes", () => {
  it("are JSON-RPC 2.0's numbers, each made with the standard message CometBFT sends", () => {
    const made = [
      JsonRpcError.parseError("p"),
      JsonRpcError.invalidRequest("r"),
      JsonRpcError.methodNotFound("m"),
      JsonRpcError.invalidParams("a"),
      JsonRpcError.internal("i"),
      JsonRpcError.server("s"),
    ].map((e) => ({ code: e.code, message: e.message, data: e.data }));
    expect(made).toEqual([
      { code: -32700, message: "Parse error. Invalid JSON", data: "p" },
      { code: -32600, message: "Invalid Request", data: "r" },
      { code: -32601, message: "Method not found", data: "m" },
      { code: -32602, message: "Invalid params", data: "a" },
      { code: -32603, message: "Internal error", data: "i" },
      { code: -32000, message: "Server error", data: "s" },
    ]);
    expect(Object.values(JsonRpcErrorCode).sort((a, b) => a - b)).toEqual([
      -32700, -32603, -32602, -32601, -32600, -32000,
    ]);
  });
});
