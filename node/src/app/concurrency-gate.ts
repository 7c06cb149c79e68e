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

  /** Runs `task` now or after those ahead of it; rejects at once when the line is full. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.opts.running) {
      this.active++;
      return this.start(task);
    }
    if (this.line.length >= this.opts.waiting) return Promise.reject(this.refuse(this.opts));
    return new Promise<void>((resolve) => this.line.push(resolve)).then(() => this.start(task));
  }

  private async start<T>(task: () => Promise<T>): Promise<T> {
    try {
      await nextTurn();
      return await task();
    } finally {
      // The slot passes to the next in line, or frees up.
      const next = this.line.shift();
      if (next) next();
      else this.active--;
    }
  }
}
