import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, visorHome } from "./visor-home.js";

describe("visor's log lines as JSON (VISOR_LOG_FORMAT=json)", () => {
  let h: ReturnType<typeof visorHome>;
  beforeEach(() => {
    h = visorHome();
  });
  afterEach(() => h.cleanup());

  it("writes one JSON object per line of its own, with cosmovisor's fields and the line's values", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const v = h.start(["start"], { VISOR_LOG_FORMAT: "json" });
    await v.waitFor(/v1 height 2/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    const own = v.lines.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    expect(own.length).toBeGreaterThan(1);
    for (const line of own) {
      expect(Object.keys(line).slice(0, 3)).toEqual(["level", "module", "time"]);
      expect(line.module).toBe("visor");
      expect(["info", "warn", "error", "debug"]).toContain(line.level);
      expect(Number.isNaN(Date.parse(line.time))).toBe(false);
      expect(typeof line.message).toBe("string");
    }
    // A line's values are fields of its object, not text in the message.
    const started = own.find((l) => /start/i.test(l.message) && Object.keys(l).length > 4);
    expect(started, JSON.stringify(own)).toBeDefined();
    // The plain lines of the default are gone from visor's own output.
    expect(v.lines.some((l) => /^\S+ INF /.test(l))).toBe(false);
  });

  it("refuses a format it does not know, naming the setting", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const bad = await h.visor(["run", "start"], { VISOR_LOG_FORMAT: "xml" });
    expect(bad.exitCode).not.toBe(0);
    expect(bad.all).toMatch(/VISOR_LOG_FORMAT/);
  });
});
