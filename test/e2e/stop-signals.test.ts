import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LineCollector } from "@chaind/harness/line-collector";
import { CHAIND_CLI, LocalTestnet, VISOR_CLI } from "@chaind/harness/local-testnet";
import { execa, type ResultPromise } from "execa";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const START_SCRIPT = join(import.meta.dirname, "../../dist/scripts/start-localnet.js");

const jobs: ResultPromise[] = [];

/** A command in a process group of its own, as a shell runs a foreground job; its output collected by line. */
function job(args: string[], env: Record<string, string>) {
  const proc = execa("node", args, {
    env,
    detached: true,
    reject: false,
    all: true,
    buffer: false,
    forceKillAfterDelay: false,
  });
  jobs.push(proc);
  return { proc, out: new LineCollector(proc.all!) };
}

/**
 * What a clean stop leaves in the output: the daemon caught the signal and stopped after its block, nothing was
 * killed. Answers the height the node stopped at.
 */
function stoppedGracefully(lines: string[]): number {
  const output = lines.join("\n");
  const stopped = output.match(/node stopped height=(\d+)/);
  expect(stopped, output).not.toBeNull();
  expect(
    lines.filter((l) => /caught signal, stopping after the current block/.test(l)),
    output,
  ).toHaveLength(1);
  // visor's words when it kills the daemon (a second signal, or a daemon past DAEMON_SHUTDOWN_GRACE).
  expect(output).not.toMatch(/killing it|SIGKILL/);
  expect(output).toMatch(/daemon exited .*code=0 signal=none/);
  return Number(stopped![1]);
}

describe("a stop signal from a terminal or from systemd stops the node once, gracefully", () => {
  let dir: string;
  let net: LocalTestnet;
  /** The height the last run stopped at: the next run's store must open there. */
  let lastHeight = 0;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "stop-signals-"));
    // The launcher npm start makes (so it continues this chain), and a home whose listeners use free ports.
    const launcher = join(dir, "bin", "chaind");
    mkdirSync(join(dir, "bin"));
    writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_CLI}" "$@"\n`);
    chmodSync(launcher, 0o755);
    net = await LocalTestnet.create({ dir, genesisBinary: launcher, blockTime: "200ms" });
  });

  // A failed test leaves its job running: it must not hold the home's database for the next one.
  afterEach(async () => {
    for (const proc of jobs.splice(0)) {
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {
        // The whole group is gone: the test stopped it.
      }
      await proc;
    }
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** The store the node opened this run, at the height the previous run stopped at. */
  async function reopenedAtLastHeight(out: LineCollector): Promise<void> {
    const opened = await out.waitFor(/opened state store .*height=(\d+)/);
    expect(Number(opened[1])).toBe(lastHeight);
  }

  it("npm start: Ctrl-C (SIGINT to the terminal's process group) stops visor and the node once", async () => {
    const { proc, out } = job([START_SCRIPT, "--dir", dir], { ...process.env } as Record<string, string>);
    await out.waitFor(/Ctrl-C stops it/);
    await out.waitFor(/committed block/);
    process.kill(-proc.pid!, "SIGINT");
    const r = await proc;
    // The script ends as SIGINT ends a program: a shell reports 130.
    expect(r.signal, out.lines.join("\n")).toBe("SIGINT");
    lastHeight = stoppedGracefully(out.lines);
    // visor saw no second stop request while its daemon ran: the script passed the terminal's on once.
    expect(out.lines.join("\n")).not.toMatch(/already stopping/);
  });

  it("systemd: SIGTERM to visor and the daemon at once stops the node once; visor exits 0", async () => {
    const { proc, out } = job([VISOR_CLI, "run", "start", "--home", net.home], net.visorEnv);
    await reopenedAtLastHeight(out);
    await out.waitFor(/committed block/);
    process.kill(-proc.pid!, "SIGTERM");
    const r = await proc;
    expect(r.exitCode, out.lines.join("\n")).toBe(0);
    lastHeight = stoppedGracefully(out.lines);
  });

  it("a terminal's SIGINT and a parent's SIGTERM right after are one stop, not a request to kill", async () => {
    const { proc, out } = job([VISOR_CLI, "run", "start", "--home", net.home], net.visorEnv);
    await reopenedAtLastHeight(out);
    await out.waitFor(/committed block/);
    process.kill(-proc.pid!, "SIGINT");
    process.kill(proc.pid!, "SIGTERM");
    const r = await proc;
    expect(r.exitCode, out.lines.join("\n")).toBe(0);
    lastHeight = stoppedGracefully(out.lines);
    expect(out.lines.join("\n")).toMatch(/already stopping the daemon/);
  });

  it("the next start opens the store at the height the last stop left", async () => {
    const { proc, out } = job([VISOR_CLI, "run", "start", "--home", net.home], net.visorEnv);
    await reopenedAtLastHeight(out);
    process.kill(-proc.pid!, "SIGTERM");
    await proc;
  });
});
