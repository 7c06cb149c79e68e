import { join } from "node:path";
import { execa, type ResultPromise } from "execa";

export const CHAIND_BIN = join(import.meta.dirname, "../../../bin/chaind.js");

/** Runs a chaind command to completion. */
export function chaind(args: string[], opts: { input?: string; env?: Record<string, string> } = {}) {
  return execa("node", [CHAIND_BIN, ...args], { reject: false, input: opts.input, env: opts.env });
}

/** A running `chaind start` whose log lines are collected as they come. */
export class NodeProcess {
  readonly lines: string[] = [];
  readonly proc: ResultPromise;
  private waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];

  constructor(home: string, extra: string[] = []) {
    this.proc = execa("node", [CHAIND_BIN, "start", "--home", home, ...extra], {
      reject: false,
      all: true,
      buffer: false,
    });
    this.proc.all!.setEncoding("utf8");
    let rest = "";
    this.proc.all!.on("data", (chunk: string) => {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop() ?? "";
      for (const line of parts) {
        this.lines.push(line);
        for (const w of [...this.waiters]) {
          const m = line.match(w.re);
          if (m) {
            this.waiters.splice(this.waiters.indexOf(w), 1);
            w.resolve(m);
          }
        }
      }
    });
  }

  /** Resolves with the first line (already seen or coming) that matches. */
  waitFor(re: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    for (const line of this.lines) {
      const m = line.match(re);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(new Error(`timed out waiting for ${re}; last lines:\n${this.lines.slice(-5).join("\n")}`)),
        timeoutMs,
      );
      this.waiters.push({
        re,
        resolve: (m) => {
          clearTimeout(t);
          resolve(m);
        },
      });
    });
  }

  /** height -> app hash, from the "committed block" lines. */
  committed(): Map<number, string> {
    const out = new Map<number, string>();
    for (const l of this.lines) {
      const m = l.match(/committed block .*height=(\d+) .*app_hash=([0-9A-F]+)/);
      if (m) out.set(Number(m[1]), m[2]);
    }
    return out;
  }
}
