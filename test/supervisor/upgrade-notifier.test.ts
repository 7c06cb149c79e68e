import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Logger } from "@chaind/core/logger";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UpgradeNotifier } from "../../supervisor/src/reporting/upgrade-notifier.js";

/** A logger that keeps its warnings, to see what the notifier reported. */
function recordingLogger() {
  const warnings: { msg: string; ctx?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    error() {},
    warn(msg, ctx) {
      warnings.push({ msg, ctx });
    },
    info() {},
    debug() {},
    child: () => logger,
  };
  return { logger, warnings };
}

describe("UpgradeNotifier (real child processes)", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "visor-notifier-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A command that appends what it reads on stdin to `events`. */
  function recorder(): { command: string; events: () => string } {
    const path = join(dir, "record.sh");
    writeFileSync(path, `#!/bin/sh\ncat >> ${join(dir, "events")}\n`, { mode: 0o755 });
    return { command: path, events: () => readFileSync(join(dir, "events"), "utf8") };
  }

  it("a command spawn refuses (a NUL byte in it) is logged once, and drain still resolves", async () => {
    const { logger, warnings } = recordingLogger();
    const n = new UpgradeNotifier({ command: "/bin/tr\0ue", timeoutMs: 5_000 }, { logger });
    n.notify("detected", { name: "v2", height: 5 });
    n.notify("switched", { name: "v2", height: 5 });
    await expect(n.drain()).resolves.toBeUndefined();
    expect(warnings).toHaveLength(1);
    expect(warnings[0].msg).toBe("notification command failed; upgrades go on without it");
    expect(String(warnings[0].ctx?.why)).toMatch(/^cannot run .*null bytes/);
  });

  it("sends Plan.info's URLs without their credentials: no user:pass@, no ?token= value", async () => {
    const r = recorder();
    const n = new UpgradeNotifier(
      { command: r.command, timeoutMs: 10_000 },
      { logger: recordingLogger().logger },
    );
    const info = JSON.stringify({
      binaries: {
        "linux/amd64": "https://alice:s3cret@releases.example/v2.tar.gz?token=t0ken&checksum=sha256:ab",
      },
    });
    n.notify("detected", { name: "v2", height: 5 }, { info });
    await n.drain();
    const sent = r.events();
    const event = JSON.parse(sent) as { details: { info: string } };
    expect(event.details.info).toContain(
      "https://REDACTED@releases.example/v2.tar.gz?token=REDACTED&checksum=sha256:ab",
    );
    expect(sent).not.toMatch(/alice|s3cret|t0ken/);
  });

  it("drain waits for one VISOR_NOTIFY_TIMEOUT in all, not one per queued event", async () => {
    const path = join(dir, "hang.sh");
    writeFileSync(path, `#!/bin/sh\nexec sleep 30\n`, { mode: 0o755 });
    const { logger, warnings } = recordingLogger();
    const n = new UpgradeNotifier({ command: path, timeoutMs: 300 }, { logger });
    for (let i = 0; i < 20; i++) n.notify("detected", { name: "v2", height: 5 });
    await n.drain();
    // Had drain waited per event, 20 hung commands would each have been killed (and logged) first.
    expect(warnings.map((w) => w.msg)).toContain("notifications still queued at exit are dropped");
  });
});
