import { GrpcCode } from "./grpc-code.js";

/**
 * The one error type of the node. `codespace` + `abciCode` follow Cosmos numbering where Cosmos has the
 * error, so tx results read the same as on a Cosmos chain; `grpcCode` decides gRPC status and HTTP status.
 */
export class ChainError extends Error {
  constructor(
    readonly codespace: string,
    readonly abciCode: number,
    readonly grpcCode: GrpcCode,
    message: string,
  ) {
    super(message);
    this.name = "ChainError";
  }

  /** Cosmos-style log text: "<detail>: <registered description>". */
  static wrap(def: ErrorDef, detail?: string): ChainError {
    return new ChainError(def.codespace, def.code, def.grpc, detail ? `${detail}: ${def.desc}` : def.desc);
  }
}

/** A registered error: codespace, ABCI code, description and the gRPC class it belongs to. */
export interface ErrorDef {
  codespace: string;
  code: number;
  desc: string;
  grpc: GrpcCode;
}

export function isChainError(e: unknown): e is ChainError {
  return e instanceof ChainError;
}

/** Any thrown value as a ChainError; unknown failures become internal errors, never a crash. */
export function toChainError(e: unknown): ChainError {
  if (e instanceof ChainError) return e;
  const msg = e instanceof Error ? e.message : String(e);
  return new ChainError("undefined", 1, GrpcCode.INTERNAL, msg);
}
