import type { Readable } from "node:stream";

/**
 * Collects a process's output line by line and lets a caller wait for a line matching a pattern, already seen
 * (from `from` on) or still to come.
 */
export class LineCollector {
  readonly lines: string[] = [];
  private waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];

  constructor(
    stream: Readable,
    private readonly onLine?: (line: string) => void,
  ) {
    stream.setEncoding("utf8");
    let rest = "";
    stream.on("data", (chunk: string) => {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) this.push(line);
    });
  }

  /** Adds a line as if the stream had produced it (several streams may feed one collector). */
  push(line: string): void {
    this.lines.push(line);
    this.onLine?.(line);
    for (const w of [...this.waiters]) {
      const m = line.match(w.re);
      if (m) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve(m);
      }
    }
  }

  waitFor(re: RegExp, timeoutMs = 30_000, from = 0): Promise<RegExpMatchArray> {
    for (const line of this.lines.slice(from)) {
      const m = line.match(re);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const waiter = {
        re,
        resolve: (m: RegExpMatchArray) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`timed out waiting for ${re}; last lines:\n${this.lines.slice(-10).join("\n")}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}
