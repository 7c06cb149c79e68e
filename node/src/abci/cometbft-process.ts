import { type ChildProcess, spawn } from "node:child_process";
import type { Logger } from "@chaind/core/logger";

/** How long CometBFT has to stop on SIGTERM before it is killed. */
const STOP_GRACE_MS = 10_000;

/**
 * `cometbft start` on the node's own home, run by `chaind start` when CometBFT makes the blocks: its log lines
 * pass through as it writes them (one output, as an operator or visor reads it), and it stops when chaind does.
 */
export class CometbftProcess {
  /** Settles when the process has ended: its exit status, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly logger: Logger,
  ) {
    this.exited = new Promise((resolve) => {
      child.once("exit", (code, signal) => resolve({ code, signal }));
      child.once("error", (e) => {
        logger.error("cannot run cometbft", { err: e.message });
        resolve({ code: 127, signal: null });
      });
    });
  }

  /** `flags`: the listen addresses `chaind start` was given, passed on (`--rpc.laddr`, `--p2p.laddr`). */
  static start(opts: { binary: string; home: string; flags?: string[] }, logger: Logger): CometbftProcess {
    const child = spawn(opts.binary, ["start", "--home", opts.home, ...(opts.flags ?? [])], {
      stdio: ["ignore", "inherit", "inherit"],
      env: process.env,
    });
    logger.info("started cometbft", { binary: opts.binary, pid: child.pid ?? 0 });
    return new CometbftProcess(child, logger);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** SIGTERM, then SIGKILL if it is still there after the grace period; settles once it has ended. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => {
      this.logger.warn("cometbft did not stop on SIGTERM; killing it", { pid: this.child.pid ?? 0 });
      this.child.kill("SIGKILL");
    }, STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}
