/**
 * Fault injection for recovery tests: with CHAIND_CRASH_AT=<point>, `chaind` kills itself with SIGKILL at that
 * point of making a block, as a power cut or the OOM killer would, so a test can prove the next start recovers.
 */
export type CrashPoint =
  /** Block saved (synced), its state not committed; its execution in memory may have begun. */
  | "block-saved"
  /** Block executed, its state not committed. */
  | "block-executed";

export function crashPoint(point: CrashPoint): void {
  if (process.env.CHAIND_CRASH_AT === point) process.kill(process.pid, "SIGKILL");
}
