/**
 * Fault injection for upgrade tests: with VISOR_CRASH_AT=<point>, visor kills itself with SIGKILL at that
 * point of an upgrade, as a power cut or the OOM killer would, so a harness can prove the next start finishes.
 */
export type CrashPoint =
  | "detected"
  | "backup"
  | "custom-pre-upgrade"
  | "download"
  | "extract"
  | "marker"
  | "switch"
  | "pre-upgrade"
  | "rollback";

export function crashPoint(point: CrashPoint): void {
  if (process.env.VISOR_CRASH_AT === point) process.kill(process.pid, "SIGKILL");
}
