import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { RestartBackoff } from "../../supervisor/src/run/restart-backoff.js";
import { fakeBinary, visorHome } from "./visor-home.js";

describe("the waits between restarts of a failing daemon", () => {
  it("start at 1s and double up to the cap; a run of a minute starts them over; 0 means none", () => {
    const b = new RestartBackoff(60_000);
    const waits = Array.from({ length: 8 }, () => b.after(50));
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
    expect(b.after(59_000)).toBe(60_000);
    expect([b.after(60_000), b.after(50)]).toEqual([1000, 2000]);

    const capped = new RestartBackoff(2500);
    expect([capped.after(0), capped.after(0), capped.after(0)]).toEqual([1000, 2000, 2500]);
    // A cap above a minute: only a run as long as the cap counts as one that worked.
    const long = new RestartBackoff(120_000);
    for (let i = 0; i < 7; i++) long.after(0);
    expect([long.after(90_000), long.after(120_000)]).toEqual([120_000, 1000]);

    const none = new RestartBackoff(0);
    expect([none.after(0), none.after(0)]).toEqual([0, 0]);
  });
});

describe("visor backs off restarting a new binary that dies right at start", () => {
  let h: ReturnType<typeof visorHome>;

  beforeEach(async () => {
    h = visorHome();
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    // v1 halts at height 5 for plan v2 (visor applies it at its next start); v2 exits 1 the moment it starts.
    const halt = await execa(join(h.home, "cosmovisor/genesis/bin/fake"), ["start"], {
      env: { ...h.env, FAKE_HALTS: "v1:5:v2", FAKE_BLOCKSTORE: "proto" },
      reject: false,
    });
    expect(halt.stdout).toContain('UPGRADE "v2" NEEDED at height: 5');
    const v2 = join(h.root, "v2-broken");
    // It tells its version (add-upgrade runs it), but cannot start.
    writeFileSync(
      v2,
      '#!/bin/sh\n[ "$1" = version ] && echo v2 && exit 0\necho "v2: cannot open its database" >&2\nexit 1\n',
      { mode: 0o755 },
    );
    const add = await h.visor(["add-upgrade", "v2", v2]);
    expect(add.exitCode, add.all).toBe(0);
  });
  afterEach(() => h.cleanup());

  /** Runs visor until it gives up; answers its status, the daemon's starts and the logged waits in order. */
  async function crashLoop(env: Record<string, string>) {
    const v = h.start(["start"], { FAKE_BLOCKSTORE: "proto", ...env });
    const code = await v.exit(90_000);
    const waits = v.lines.flatMap((l) => {
      const m = /exited with an error before its first block: starting it again in (\S+)/.exec(l);
      return m ? [m[1]] : [];
    });
    return { code, starts: v.lines.filter((l) => /starting daemon/.test(l)).length, waits, output: v.output };
  }

  it("waits 1s, 2s, 4s between starts, each logged with its reason, then rolls back", async () => {
    const r = await crashLoop({ VISOR_ROLLBACK_AFTER_FAILURES: "4" });
    expect(r.code, r.output).toBe(70);
    expect(r.starts).toBe(4);
    expect(r.waits).toEqual(["1s", "2s", "4s"]);
    expect(r.output).toMatch(/code=1 failure="?1 of 4"? wait=1s/);
  });

  it("never waits longer than VISOR_RESTART_BACKOFF_MAX", async () => {
    const capped = await crashLoop({
      VISOR_ROLLBACK_AFTER_FAILURES: "4",
      VISOR_RESTART_BACKOFF_MAX: "1500ms",
    });
    expect(capped.code, capped.output).toBe(70);
    expect(capped.starts).toBe(4);
    expect(capped.waits).toEqual(["1s", "1.5s", "1.5s"]);
  });

  it("a stop asked for during a wait ends visor there: the binary is not started again", async () => {
    const v = h.start(["start"], { FAKE_BLOCKSTORE: "proto", VISOR_ROLLBACK_AFTER_FAILURES: "10" });
    await v.waitFor(/starting it again in 4s/, 60_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit(60_000), v.output).toBe(143);
    expect(v.lines.filter((l) => /starting daemon/.test(l))).toHaveLength(3);
  });

  it("starts it again at once with VISOR_RESTART_BACKOFF_MAX=0", async () => {
    const off = await crashLoop({ VISOR_ROLLBACK_AFTER_FAILURES: "3", VISOR_RESTART_BACKOFF_MAX: "0s" });
    expect(off.code, off.output).toBe(70);
    expect(off.waits).toEqual(["0s", "0s"]);
  });
});
