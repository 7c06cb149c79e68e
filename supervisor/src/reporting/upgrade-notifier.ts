import { type ChildProcess, type ChildProcessByStdio, spawn } from "node:child_process";
import type { Writable } from "node:stream";
import type { Logger } from "@chaind/core/logger";
import { redactUrls } from "../errors/url-redaction.js";

/** The steps of an upgrade a notification is sent for, in the order they happen. */
export type UpgradeEventName =
  | "detected"
  | "downloaded"
  | "verified"
  | "switched"
  | "pre_upgrade_done"
  | "restarted"
  | "first_block"
  | "failed"
  | "rolled_back"
  | "rehearsed";

/** What the notification command reads on stdin: one JSON object and a newline. */
export interface UpgradeEvent {
  event: UpgradeEventName;
  upgrade: string;
  height: number;
  /** When visor saw the step, RFC 3339 in UTC. */
  time: string;
  details: Record<string, unknown>;
}

function killGroup(child: ChildProcess): void {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/**
 * VISOR_NOTIFY_CMD: runs the operator's command once per upgrade event, with the event as JSON on stdin. Events
 * are queued and sent one at a time, in order, in the background: a command that fails, hangs (killed after
 * VISOR_NOTIFY_TIMEOUT, with its process group) or does not exist never delays or fails an upgrade. Each kind of
 * failure is logged once.
 */
export class UpgradeNotifier {
  private queue: Promise<void> = Promise.resolve();
  private readonly argv: string[];
  private readonly warned = new Set<string>();
  /** Set once drain's deadline has passed: what is still queued is dropped, the running command killed. */
  private dropped = false;
  private running: ChildProcess | null = null;

  constructor(
    private readonly opts: {
      command: string;
      timeoutMs: number;
      /** Told of every event as it happens, command or not (a rehearsal times its steps with it). */
      onEvent?: (event: UpgradeEvent) => void;
    },
    private readonly deps: { logger: Logger },
  ) {
    // Split at spaces, no shell and no quoting: a value that needs either names a script.
    this.argv = opts.command.split(/\s+/).filter(Boolean);
  }

  notify(
    event: UpgradeEventName,
    plan: { name: string; height: number },
    details: Record<string, unknown> = {},
  ): void {
    const doc: UpgradeEvent = {
      event,
      upgrade: plan.name,
      height: plan.height,
      time: new Date().toISOString(),
      details,
    };
    this.opts.onEvent?.(doc);
    if (this.argv.length === 0) return;
    // Plan.info and errors may name URLs with credentials.
    const line = `${redactUrls(JSON.stringify(doc))}\n`;
    // A command spawn refuses outright (a NUL byte in it) must not break the queue for later events.
    this.queue = this.queue
      .then(() => this.send(event, line))
      .catch((e: unknown) => this.failed(event, `cannot run ${this.argv[0]}: ${(e as Error).message}`));
  }

  /**
   * Waits for the queued events, so none is lost when visor exits; but for one VISOR_NOTIFY_TIMEOUT in all,
   * however many are queued, so a slow command cannot hold visor's exit for long.
   */
  async drain(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), this.opts.timeoutMs);
    });
    const outcome = await Promise.race([this.queue, deadline]);
    clearTimeout(timer);
    if (outcome !== "late") return;
    this.dropped = true;
    if (this.running) killGroup(this.running);
    this.deps.logger.warn("notifications still queued at exit are dropped", {
      after_ms: this.opts.timeoutMs,
    });
  }

  private send(event: UpgradeEventName, line: string): Promise<void> {
    const [cmd, ...args] = this.argv;
    if (this.dropped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let done = false;
      const finish = (failure: string | null) => {
        if (done) return;
        done = true;
        this.running = null;
        clearTimeout(timer);
        if (failure) this.failed(event, failure);
        resolve();
      };
      let child: ChildProcessByStdio<Writable, null, null>;
      try {
        child = spawn(cmd, args, { stdio: ["pipe", "ignore", "inherit"], detached: true });
      } catch (e) {
        this.failed(event, `cannot run ${cmd}: ${(e as Error).message}`);
        return resolve();
      }
      this.running = child;
      const timer = setTimeout(() => {
        killGroup(child);
        finish(`still running after ${this.opts.timeoutMs} ms (VISOR_NOTIFY_TIMEOUT): killed`);
      }, this.opts.timeoutMs);
      child.once("error", (e) => finish(`cannot run ${cmd}: ${e.message}`));
      child.once("exit", (code, signal) =>
        finish(code === 0 ? null : `exited with ${code !== null ? `status ${code}` : signal}`),
      );
      // A command that does not read stdin closes it: that is its business, not a failure.
      child.stdin.once("error", () => {});
      child.stdin.end(line);
    });
  }

  private failed(event: UpgradeEventName, why: string): void {
    if (this.warned.has(why)) {
      this.deps.logger.debug("notification command failed", { event, why });
      return;
    }
    this.warned.add(why);
    this.deps.logger.warn("notification command failed; upgrades go on without it", {
      event,
      command: this.argv[0],
      why,
    });
  }
}
