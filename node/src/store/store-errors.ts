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
