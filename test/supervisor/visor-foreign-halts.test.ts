import { readlinkSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "@chaind/harness/free-listener-ports";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, visorHome } from "./visor-home.js";

/** What the fake daemon's RPC answers on /status, or null while nothing listens. */
async function rpcStatus(port: number): Promise<{ version: string; height: string } | null> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/status`);
    const doc = (await res.json()) as {
      result: { version: string; sync_info: { latest_block_height: string } };
    };
    return { version: doc.result.version, height: doc.result.sync_info.latest_block_height };
  } catch {
    return null;
  }
}

/**
 * Daemons other than chaind halt in other ways than "write upgrade-info.json, exit 1": a Go binary panics, and a
 * CometBFT node that fails in consensus stays up with its RPC serving. visor must stop and upgrade each.
 */
describe("visor: foreign daemons halting as they really do", () => {
  let h: ReturnType<typeof visorHome>;

  beforeEach(async () => {
    h = visorHome();
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    expect((await h.visor(["add-upgrade", "v2", fakeBinary(h.root, "v2")])).exitCode).toBe(0);
  });
  afterEach(() => h.cleanup());

  const current = () => readlinkSync(join(h.home, "cosmovisor/current"));

  it("a Go-style daemon that writes upgrade-info.json and exits 2 with a panic trace is upgraded", async () => {
    const v = h.start(["start"], { FAKE_HALTS: "v1:5:v2", FAKE_HALT_STYLE: "panic" });
    await v.waitFor(/v2 height 6/);
    expect(v.output).toContain('panic: UPGRADE "v2" NEEDED at height: 5');
    expect(v.output).toMatch(/goroutine 1 \[running\]/);
    expect(current()).toBe("upgrades/v2");
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
  });

  it.each([
    [
      "file events, SIGINT within DAEMON_SHUTDOWN_GRACE",
      { DAEMON_SHUTDOWN_GRACE: "30s" },
      /v1 stopping at height 4/,
    ],
    ["polling only, killed at once (DAEMON_SHUTDOWN_GRACE=0)", { VISOR_WATCH_EVENTS: "false" }, null],
  ])(
    "a daemon that writes the file and stays up with its RPC serving (CometBFT's CONSENSUS FAILURE) is stopped and upgraded: %s",
    async (_name, extra, stopped) => {
      const port = await freePort();
      const v = h.start(["start"], {
        FAKE_HALTS: "v1:5:v2",
        FAKE_HALT_STYLE: "stay",
        FAKE_RPC_PORT: String(port),
        ...extra,
      });
      await v.waitFor(/CONSENSUS FAILURE!!! err="UPGRADE "v2" NEEDED at height: 5"/);
      await v.waitFor(/v2 running from height 4/);
      if (stopped) expect(v.output).toMatch(stopped);
      expect(v.output).toContain("upgrade-info.json names a new upgrade: stopping the daemon");
      expect(current()).toBe("upgrades/v2");
      // The port is v2's now: the old daemon, RPC and all, is gone.
      await v.waitFor(/v2 height 6/);
      let answer = await rpcStatus(port);
      for (let i = 0; i < 100 && answer?.version !== "v2"; i++) {
        await new Promise((r) => setTimeout(r, 50));
        answer = await rpcStatus(port);
      }
      expect(answer?.version).toBe("v2");
      v.proc.kill("SIGTERM");
      expect(await v.exit()).toBe(0);
    },
  );
});
