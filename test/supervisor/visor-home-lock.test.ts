import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, VISOR, type VisorProcess, visorHome } from "./visor-home.js";

/** Running, and not a zombie (an orphan that exited stays in the table until whoever adopted it reaps it). */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return false;
  }
}

/** The first of `runs` to exit, or null when none has within `ms`. */
async function firstToExit(runs: VisorProcess[], ms = 30_000): Promise<VisorProcess | null> {
  return Promise.race([...runs.map((r) => r.proc.then(() => r)), sleep(ms).then(() => null)]);
}

describe("one visor per home: cosmovisor/visor.lock", () => {
  let h: ReturnType<typeof visorHome>;
  const cosmovisor = (...p: string[]) => join(h.home, "cosmovisor", ...p);
  const status = () => JSON.parse(readFileSync(cosmovisor("visor-status.json"), "utf8"));
  const started: VisorProcess[] = [];
  const start = () => {
    const v = h.start(["start"]);
    started.push(v);
    return v;
  };

  beforeEach(async () => {
    h = visorHome();
    const init = await h.visor(["init", fakeBinary(h.root, "v1")]);
    expect(init.exitCode, init.all).toBe(0);
  });
  afterEach(async () => {
    for (const v of started.splice(0)) v.proc.kill("SIGKILL");
    h.cleanup();
  });

  it("a second visor run refuses in one line and leaves the first, its daemon and its files alone; a killed one is taken over", async () => {
    const first = start();
    await first.waitFor(/v1 height 2/);
    const daemon = status().child_pid as number;
    expect(readFileSync(cosmovisor("visor.pid"), "utf8")).toBe(`${first.proc.pid}\n`);
    // A download of the first visor's in flight: a visor that starts clears such scratch folders.
    const inFlight = cosmovisor("prefetch", ".tmp-v2-in-flight");
    mkdirSync(inFlight, { recursive: true });

    // Bounded: a second visor that did not refuse would run on.
    const second = await execa("node", [VISOR, "run", "start"], {
      env: h.env,
      reject: false,
      timeout: 20_000,
    });
    expect(second.exitCode).toBe(1);
    expect(second.stdout).toBe("");
    expect(second.stderr).toBe(
      `Error: visor (pid ${first.proc.pid}, recorded in ${cosmovisor("visor.pid")}) still runs on ${h.home}: not starting a second visor on it`,
    );
    // The first carries on as if nothing happened: same daemon, still producing blocks, nothing cleared.
    const seen = first.lines.length;
    await first.waitFor(/v1 height \d+/, 20_000, seen);
    expect(alive(daemon)).toBe(true);
    expect(status().child_pid).toBe(daemon);
    expect(first.output).not.toMatch(/daemon exited|stopping it first/);
    expect(readFileSync(cosmovisor("visor.pid"), "utf8")).toBe(`${first.proc.pid}\n`);
    expect(existsSync(inFlight)).toBe(true);

    // Neither may a rollback run under it.
    const rollback = await h.visor(["rollback"]);
    expect(rollback.exitCode).toBe(1);
    expect(rollback.stderr).toBe(
      `Error: visor (pid ${first.proc.pid}, recorded in ${cosmovisor("visor.pid")}) still runs on ${h.home}: stop it first, then run visor rollback`,
    );

    // Killed with SIGKILL, the first leaves its daemon (which it started holding the lock) and visor.pid
    // behind, but not its lock: the next visor stops that daemon and runs.
    first.proc.kill("SIGKILL");
    await new Promise((r) => first.proc.once("exit", r));
    expect(alive(daemon)).toBe(true);
    const next = start();
    await next.waitFor(new RegExp(`earlier visor still runs: stopping it first .*pid=${daemon}`));
    await next.waitFor(/v1 height/);
    expect(alive(daemon)).toBe(false);
    expect(readFileSync(cosmovisor("visor.pid"), "utf8")).toBe(`${next.proc.pid}\n`);
    next.proc.kill("SIGTERM");
    expect(await next.exit(), next.output).toBe(0);
    expect(existsSync(cosmovisor("visor.pid"))).toBe(false);
  });

  it("of two visors started at the same instant, exactly one runs", async () => {
    for (let round = 0; round < 3; round++) {
      const pair = [start(), start()];
      const loser = await firstToExit(pair);
      expect(loser, `round ${round}: neither refused`).not.toBeNull();
      const winner = pair.find((v) => v !== loser)!;
      expect(await loser!.exit(), loser!.output).toBe(1);
      expect(loser!.output).toBe(
        `Error: visor (pid ${winner.proc.pid}, recorded in ${cosmovisor("visor.pid")}) still runs on ${h.home}: not starting a second visor on it`,
      );
      await winner.waitFor(/v1 height/);
      expect(winner.lines.filter((l) => l.includes("starting daemon"))).toHaveLength(1);
      winner.proc.kill("SIGTERM");
      expect(await winner.exit(), winner.output).toBe(0);
    }
  });

  it("a pid in visor.pid that now belongs to another process blocks nothing", async () => {
    // What a visor killed long ago leaves: its pid, since reused by an unrelated, live process.
    const unrelated = spawn("sleep", ["60"]);
    try {
      writeFileSync(cosmovisor("visor.pid"), `${unrelated.pid}\n`);
      const rollback = await h.visor(["rollback"]);
      expect(rollback.exitCode).toBe(1);
      expect(rollback.stderr.trim()).toBe(
        "Error: nothing to roll back: visor has not switched to a new binary that is still waiting for its first block",
      );
      const v = start();
      await v.waitFor(/v1 height/);
      expect(readFileSync(cosmovisor("visor.pid"), "utf8")).toBe(`${v.proc.pid}\n`);
      v.proc.kill("SIGTERM");
      expect(await v.exit(), v.output).toBe(0);
      expect(alive(unrelated.pid!)).toBe(true);
    } finally {
      unrelated.kill("SIGKILL");
    }
  });
});
