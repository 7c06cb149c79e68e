/** A read at a height the store cannot answer for: never a wrong value instead. */
export class StoreHeightError extends Error {
  constructor(
    readonly code: "FUTURE_HEIGHT" | "PRUNED_HEIGHT" | "INVALID_HEIGHT",
    message: string,
  ) {
    super(message);
    this.name = "StoreHeightError";
  }
}

/** The data folder is held by another process (LevelDB's lock). */
export class StoreLockedError extends Error {
  readonly code = "STORE_LOCKED";
  constructor(dir: string) {
    super(`data folder ${dir} is locked by another process: is a node already running with this home?`);
    this.name = "StoreLockedError";
  }
}
