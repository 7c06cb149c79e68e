import { existsSync, readFileSync, rmSync } from "node:fs";
import { writeFileAtomic } from "@chaind/core/atomic-file";

/**
 * `$DAEMON_HOME/cosmovisor/visor.pid`: the pid of the visor running on the home, written when it starts and
 * removed when it exits, so `visor rollback` can refuse to restore data under a running visor. A visor killed
 * with SIGKILL leaves it behind: a pid that no longer runs is ignored, and the next visor writes its own.
 */
export class VisorPidFile {
  constructor(private readonly path: string) {}

  claim(): void {
    writeFileAtomic(this.path, `${process.pid}\n`);
  }

  /** Removes the file if it is still this process's (a later visor may have written its own). */
  release(): void {
    if (this.recorded() === process.pid) rmSync(this.path, { force: true });
  }

  /** The pid of another visor that still runs on the home; null if none is recorded or it is gone. */
  otherRunning(): number | null {
    const pid = this.recorded();
    if (pid === null || pid === process.pid) return null;
    try {
      process.kill(pid, 0);
      return pid;
    } catch (e) {
      // EPERM: it runs, as another user.
      return (e as NodeJS.ErrnoException).code === "EPERM" ? pid : null;
    }
  }

  private recorded(): number | null {
    if (!existsSync(this.path)) return null;
    const pid = Number(readFileSync(this.path, "utf8").trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : null;
  }
}
