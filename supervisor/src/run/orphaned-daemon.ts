import { existsSync, readFileSync } from "node:fs";
import type { Logger } from "@chaind/core/logger";
import type { VisorStatus } from "../upgrade/visor-status.js";

/** Running, and not a zombie: an orphan that exited stays in the table until whoever adopted it reaps it. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

async function gone(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/**
 * The pid of the daemon a visor recorded in the status file, if it still runs that binary (read from /proc, so a
 * reused pid is not taken for it); null otherwise.
 */
export function recordedDaemon(status: VisorStatus | null): number | null {
  const pid = status?.child_pid;
  const binary = status?.running_binary;
  if (!pid || !binary) return null;
  let command: string;
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ");
  } catch {
    return null;
  }
  return command.includes(binary) && alive(pid) ? pid : null;
}

/**
 * A visor killed with SIGKILL (the OOM killer, `systemctl kill -s KILL`, a power-cut of the supervisor alone)
 * leaves its daemon running, and a second daemon on the same home would fail on the locked database. Before
 * launching anything, visor stops the daemon the last visor recorded in the status file: SIGTERM, then SIGKILL
 * after `graceMs`.
 */
export async function stopOrphanedDaemon(
  previous: VisorStatus | null,
  deps: { logger: Logger; graceMs: number },
): Promise<void> {
  const pid = recordedDaemon(previous);
  if (pid === null) return;
  deps.logger.warn("a daemon started by an earlier visor still runs: stopping it first", {
    pid,
    binary: previous?.running_binary,
  });
  process.kill(pid, "SIGTERM");
  if (await gone(pid, deps.graceMs)) return;
  deps.logger.warn("the earlier daemon did not stop in time: killing it", { pid });
  process.kill(pid, "SIGKILL");
  await gone(pid, 5_000);
}

/**
 * For what must not overlap a running daemon (`visor rollback`): the recorded daemon's pid if it may still
 * run. Without /proc, which binary a pid runs cannot be read, so a recorded pid that exists is taken for it.
 */
export function daemonMayRun(status: VisorStatus | null): number | null {
  const pid = status?.child_pid;
  if (!pid) return null;
  if (existsSync("/proc/self")) return recordedDaemon(status);
  try {
    process.kill(pid, 0);
    return pid;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM" ? pid : null;
  }
}
