import { nextTurn } from "./event-loop-turn.js";

export interface GateLoad {
  running: number;
  waiting: number;
}

export interface ConcurrencyGateOptions {
  /** Tasks that run at once. */
  running: number;
  /** Tasks that may wait for a turn; one more is refused at once. */
  waiting: number;
}

/**
 * A semaphore with a bounded line: `running` tasks at once, `waiting` more in line, and the rest refused with
 * the caller's error, so a burst of expensive requests cannot pile up without end. Each task starts on a fresh
 * event-loop turn, so a line of tasks never runs back to back without letting timers and I/O in between.
 */
export class ConcurrencyGate {
  private active = 0;
  private readonly line: (() => void)[] = [];

  constructor(
    private readonly opts: ConcurrencyGateOptions,
    private readonly refuse: (limits: ConcurrencyGateOptions) => Error,
  ) {}

  get load(): GateLoad {
    return { running: this.active, waiting: this.line.length };
  }

  /**
   * Runs `task` now or after those ahead of it; rejects at once when the line is full. A task whose `signal`
   * aborts while it waits leaves the line without running (rejecting with the signal's reason), so callers that
   * gave up do not hold places others could use.
   */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.active < this.opts.running) {
      this.active++;
      return this.start(task, signal);
    }
    if (this.line.length >= this.opts.waiting) return Promise.reject(this.refuse(this.opts));
    return new Promise<void>((resolve, reject) => {
      const turn = () => {
        signal?.removeEventListener("abort", leave);
        resolve();
      };
      const leave = () => {
        const at = this.line.indexOf(turn);
        if (at >= 0) this.line.splice(at, 1);
        reject(signal?.reason);
      };
      this.line.push(turn);
      signal?.addEventListener("abort", leave, { once: true });
    }).then(() => this.start(task, signal));
  }

  private async start<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      await nextTurn();
      signal?.throwIfAborted();
      return await task();
    } finally {
      // The slot passes to the next in line, or frees up.
      const next = this.line.shift();
      if (next) next();
      else this.active--;
    }
  }
}
