import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";

export const VISOR = join(import.meta.dirname, "../../bin/visor.js");
const FAKE = join(import.meta.dirname, "../../fixtures/daemons/fake-daemon.cjs");

/** A copy of the fake daemon that reports `version`. */
export function fakeBinary(dir: string, version: string): string {
  const path = join(dir, `fake-${version}`);
  writeFileSync(
    path,
    readFileSync(FAKE, "utf8").replace('const VERSION = "v1";', `const VERSION = "${version}";`),
  );
  chmodSync(path, 0o755);
  return path;
}

export const sha256File = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

/** A temp DAEMON_HOME with visor settings for fast tests; `visor(args)` runs the CLI against it. */
export function visorHome() {
  const root = mkdtempSync(join(tmpdir(), "visor-"));
  const home = join(root, "home");
  const env: Record<string, string> = {
    DAEMON_HOME: home,
    DAEMON_NAME: "fake",
    DAEMON_POLL_INTERVAL: "50ms",
    COSMOVISOR_COLOR_LOGS: "false",
    VISOR_PREFETCH: "false",
    VISOR_RPC_ADDRESS: "http://127.0.0.1:1",
  };
  return {
    root,
    home,
    env,
    visor: (args: string[], extra: Record<string, string> = {}) =>
      execa("node", [VISOR, ...args], { env: { ...env, ...extra }, reject: false, all: true }),
    start: (args: string[], extra: Record<string, string> = {}) =>
      new VisorProcess(args, { ...env, ...extra }),
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** `visor run ...` in the background, its output collected line by line. */
export class VisorProcess {
  readonly lines: string[] = [];
  readonly proc: ResultPromise;
  private waiters: { re: RegExp; resolve: (m: RegExpMatchArray) => void }[] = [];

  constructor(args: string[], env: Record<string, string>) {
    this.proc = execa("node", [VISOR, "run", ...args], { env, reject: false, all: true, buffer: false });
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

  waitFor(re: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    for (const line of this.lines) {
      const m = line.match(re);
      if (m) return Promise.resolve(m);
    }
    return new Promise((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(new Error(`timed out waiting for ${re}; last lines:\n${this.lines.slice(-10).join("\n")}`)),
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

  async exit(timeoutMs = 20_000): Promise<number> {
    const t = setTimeout(() => this.proc.kill("SIGKILL"), timeoutMs);
    const r = await this.proc;
    clearTimeout(t);
    return r.exitCode ?? -1;
  }

  get output(): string {
    return this.lines.join("\n");
  }
}
