import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

export type StoreHeightErrorCode = "FUTURE_HEIGHT" | "PRUNED_HEIGHT" | "INVALID_HEIGHT";

/**
 * A read at a height the store cannot answer for: never a wrong value instead. A ChainError with Cosmos's
 * codes (future heights are `invalid height`, pruned or negative ones `invalid request`), so every edge
 * renders it as bad input, not as an internal failure.
 */
export class StoreHeightError extends ChainError {
  constructor(
    readonly code: StoreHeightErrorCode,
    detail: string,
  ) {
    const def = code === "FUTURE_HEIGHT" ? SdkErrors.InvalidHeight : SdkErrors.InvalidRequest;
    super(def.codespace, def.code, def.grpc, `${detail}: ${def.desc}`);
    this.name = "StoreHeightError";
  }
}

/** The data folder is held by another process (LevelDB's lock), or already open in this one. */
export class StoreLockedError extends Error {
  readonly code = "STORE_LOCKED";
  constructor(readonly dir: string) {
    super(`database folder ${dir} is locked by another process (is a node already running with this home?)`);
    this.name = "StoreLockedError";
  }
}

export type KeyCodecErrorCode = "MALFORMED_KEY" | "UNENCODABLE_KEY";

/**
 * A store key that does not fit its layout: bytes that decode to no value (wrong prefix, cut short, bytes
 * left over), or a value no key can hold (a negative uint64, an over-long length-prefixed part). Never a
 * guess.
 */
export class KeyCodecError extends Error {
  constructor(
    readonly code: KeyCodecErrorCode,
    detail: string,
  ) {
    super(code === "MALFORMED_KEY" ? `malformed store key: ${detail}` : `cannot encode store key: ${detail}`);
    this.name = "KeyCodecError";
  }
}
