/**
 * Fault injection for recovery tests: with CHAIND_CRASH_AT=<point> (or <point>@<height>, that block only),
 * `chaind` kills itself with SIGKILL at that point of making a block, as a power cut or the OOM killer would, so
 * a test can prove the next start recovers.
 */
export type CrashPoint =
  /** Block saved (synced), its state not committed; its execution in memory may have begun. */
  | "block-saved"
  /** Block executed, its state not committed (embedded engine; under CometBFT, FinalizeBlock run, not answered). */
  | "block-executed";

export function crashPoint(point: CrashPoint, height?: number): void {
  const [want, at] = (process.env.CHAIND_CRASH_AT ?? "").split("@");
  if (want === point && (at === undefined || Number(at) === height)) process.kill(process.pid, "SIGKILL");
}
