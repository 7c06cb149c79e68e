import { readFileSync, rmSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { VisorError } from "../errors/visor-error.js";
import { ProcessLock } from "../host/process-lock.js";
import type { VisorLayout } from "./visor-layout.js";

/** How long a refused visor looks for the holder's pid in visor.pid, which the holder writes once it holds. */
const HOLDER_PID_WAIT_MS = 1_000;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it runs, as another user.
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

function recordedPid(file: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(file, "utf8").trim());
  } catch {
    return null;
  }
  return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
}

/**
 * The one visor process that supervises a home (`visor run`) or rewrites it behind its daemon's back (`visor
 * rollback`) holds `cosmovisor/visor.lock/` (a ProcessLock) for as long as it does, taken before it touches
 * anything, and names itself in `cosmovisor/visor.pid`. Another such command on the home is refused, naming that
 * pid. Whether a visor runs is the lock's answer, never the pid file's: a visor killed with SIGKILL leaves
 * visor.pid behind, and its pid may since belong to any process, but its lock went with it.
 */
export class VisorHomeLock {
  private constructor(
    private readonly lock: ProcessLock,
    private readonly pidFile: string,
  ) {}

  /** Takes the home's lock, or throws one line: which visor holds it, where that is recorded, and `then`. */
  static async take(layout: VisorLayout, then: string): Promise<VisorHomeLock> {
    const lock = await ProcessLock.tryTake(layout.lockDir);
    if (!lock) {
      const holder = await VisorHomeLock.holder(layout.pidFile);
      throw new VisorError(
        "HOME_IN_USE",
        `visor (pid ${holder ?? "unknown"}, recorded in ${layout.pidFile}) still runs on ${layout.config.home}: ${then}`,
      );
    }
    writeFileAtomic(layout.pidFile, `${process.pid}\n`);
    return new VisorHomeLock(lock, layout.pidFile);
  }

  /** The holder's pid: a visor that has just taken the lock may not have replaced a dead one's record yet. */
  private static async holder(pidFile: string): Promise<number | null> {
    const deadline = Date.now() + HOLDER_PID_WAIT_MS;
    for (;;) {
      const pid = recordedPid(pidFile);
      if ((pid !== null && alive(pid)) || Date.now() > deadline) return pid;
      await sleep(50);
    }
  }

  async release(): Promise<void> {
    rmSync(this.pidFile, { force: true });
    await this.lock.release();
  }
}
