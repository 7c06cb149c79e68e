import { LineCollector } from "@chaind/harness/line-collector";
import { execa, type ResultPromise } from "execa";

const live = new Set<BenchProcess>();

/**
 * A child process a benchmark starts (a server, chaind, visor), its output lines collected with the moment
 * each arrived, so durations can be read off the log. Every one is stopped by `stopAllBenchProcesses`.
 */
export class BenchProcess {
  readonly proc: ResultPromise;
  private readonly out: LineCollector;
  /** performance.now() at which each collected line arrived, index for index with `lines`. */
  readonly arrivals: number[] = [];
  readonly startedAt = performance.now();

  constructor(file: string, args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
    this.proc = execa(file, args, {
      env: opts.env,
      cwd: opts.cwd,
      reject: false,
      all: true,
      buffer: false,
    });
    this.out = new LineCollector(this.proc.all!, () => this.arrivals.push(performance.now()));
    live.add(this);
    void this.proc.then(() => live.delete(this));
  }

  get pid(): number {
    return this.proc.pid ?? -1;
  }

  get lines(): string[] {
    return this.out.lines;
  }

  /** The first line from index `from` on that matches, with the moment it arrived. */
  async waitFor(re: RegExp, timeoutMs = 60_000, from = 0): Promise<{ match: RegExpMatchArray; at: number }> {
    const match = await this.out.waitFor(re, timeoutMs, from);
    const index = this.lines.findIndex((l, i) => i >= from && re.test(l));
    return { match, at: this.arrivals[index] ?? performance.now() };
  }

  get exited(): boolean {
    return this.proc.exitCode !== undefined && this.proc.exitCode !== null;
  }

  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code once the process is gone. */
  async stop(graceMs = 15_000): Promise<number> {
    if (this.proc.exitCode === null || this.proc.exitCode === undefined) this.proc.kill("SIGTERM");
    const t = setTimeout(() => this.proc.kill("SIGKILL"), graceMs);
    const r = await this.proc;
    clearTimeout(t);
    live.delete(this);
    return r.exitCode ?? -1;
  }
}

/** Stops every bench process still running (the runner calls this on exit and on Ctrl-C). */
export async function stopAllBenchProcesses(): Promise<void> {
  await Promise.allSettled([...live].map((p) => p.stop(5000)));
}
