/** A pre-fetch of one plan: not started yet (`pending`), under way, staged, or failed and why. */
export type PrefetchOutcome =
  | { state: "pending" | "downloading" | "ready" }
  | { state: "failed"; error: string };
