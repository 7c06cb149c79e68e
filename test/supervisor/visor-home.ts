import { createHash } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa, type ResultPromise } from "execa";
import { LineCollector } from "../../harness/src/line-collector.js";

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
    // No node API unless a test serves one: nothing listens on port 1.
    DAEMON_GRPC_ADDRESS: "127.0.0.1:1",
    VISOR_REST_ADDRESS: "http://127.0.0.1:1",
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
  readonly proc: ResultPromise;
  private readonly out: LineCollector;

  constructor(args: string[], env: Record<string, string>) {
    this.proc = execa("node", [VISOR, "run", ...args], { env, reject: false, all: true, buffer: false });
    this.out = new LineCollector(this.proc.all!);
  }

  get lines(): string[] {
    return this.out.lines;
  }

  waitFor(re: RegExp, timeoutMs = 20_000): Promise<RegExpMatchArray> {
    return this.out.waitFor(re, timeoutMs);
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
