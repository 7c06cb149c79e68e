import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { fakeBinary, visorHome } from "./visor-home.js";

/** Running, and not a zombie waiting for whoever adopted it. */
function alive(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
  } catch {
    return false;
  }
}

/**
 * chaind runs CometBFT beside itself. A daemon that dies, or that visor kills, without stopping such a child must
 * not leave it running: it would hold the node's ports and databases (the next binary could not start its own)
 * and visor's output. The fake daemon's FAKE_CHILD stands for that child: it never stops it.
 */
describe("visor: what the daemon started goes with it", () => {
  let h: ReturnType<typeof visorHome>;
  let childFile: string;
  const leftovers: number[] = [];

  beforeEach(async () => {
    h = visorHome();
    childFile = join(h.root, "child.pid");
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
  });
  afterEach(() => {
    for (const pid of leftovers.splice(0)) if (alive(pid)) process.kill(pid, "SIGKILL");
    h.cleanup();
  });

  const child = () => {
    const pid = Number(readFileSync(childFile, "utf8"));
    leftovers.push(pid);
    return pid;
  };

  it("a daemon that crashes: visor kills the process it left running, and says so", async () => {
    const v = h.start(["start"], { FAKE_CRASH: "v1", FAKE_CHILD: childFile });
    expect(await v.exit()).toBe(2);
    expect(existsSync(childFile)).toBe(true);
    await vi.waitFor(() => expect(alive(child())).toBe(false), { timeout: 5_000, interval: 50 });
    expect(v.output).toMatch(/the daemon left processes of its own running: killed them/);
  });

  it("a daemon killed after DAEMON_SHUTDOWN_GRACE is killed with its children", async () => {
    const v = h.start(["start"], {
      FAKE_CHILD: childFile,
      FAKE_IGNORE_SIGINT: "1",
      DAEMON_SHUTDOWN_GRACE: "300ms",
    });
    await v.waitFor(/v1 height 2/);
    const pid = child();
    expect(alive(pid)).toBe(true);
    v.proc.kill("SIGTERM");
    await v.waitFor(/daemon did not stop within DAEMON_SHUTDOWN_GRACE: killing it/);
    await v.exit();
    await vi.waitFor(() => expect(alive(pid)).toBe(false), { timeout: 5_000, interval: 50 });
  });
});
