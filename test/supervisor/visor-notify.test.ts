import { copyFileSync, existsSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { goPlatform } from "@chaind/core/go-platform";
import { ReleaseServer } from "@chaind/harness/release-server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, sha256File, visorHome } from "./visor-home.js";

interface Event {
  event: string;
  upgrade: string;
  height: number;
  time: string;
  details: Record<string, unknown>;
}

const eventsIn = (file: string): Event[] =>
  existsSync(file)
    ? readFileSync(file, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as Event)
    : [];

describe("visor: VISOR_NOTIFY_CMD", () => {
  let h: ReturnType<typeof visorHome>;
  let server: ReleaseServer;
  let env: Record<string, string>;

  /** v1 halts at 5 for v2, whose binary the release server offers with its checksum; heights in a block store. */
  beforeEach(async () => {
    h = visorHome();
    const files = join(h.root, "served");
    mkdirSync(files);
    server = await ReleaseServer.start({ dir: files });
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    copyFileSync(fakeBinary(h.root, "v2"), join(files, "fake-v2"));
    const url = `${server.fileUrl("fake-v2")}?checksum=sha256:${sha256File(join(files, "fake-v2"))}`;
    env = {
      FAKE_HALTS: "v1:5:v2",
      FAKE_BLOCKSTORE: "proto",
      FAKE_INFO: JSON.stringify({ binaries: { [goPlatform()]: url } }),
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    };
  });
  afterEach(async () => {
    await server.close();
    h.cleanup();
  });

  function script(name: string, body: string): string {
    const path = join(h.root, name);
    writeFileSync(path, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    return path;
  }

  it("sends each step of an upgrade, in order, as one JSON event on stdin", async () => {
    const file = join(h.root, "events.jsonl");
    const v = h.start(["start"], {
      ...env,
      VISOR_NOTIFY_CMD: `${script("notify.sh", 'cat >> "$1"')} ${file}`,
    });
    await v.waitFor(/first block after the upgrade/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    const events = eventsIn(file);
    expect(events.map((e) => e.event)).toEqual([
      "detected",
      "downloaded",
      "verified",
      "switched",
      "pre_upgrade_done",
      "restarted",
      "first_block",
    ]);
    for (const e of events) {
      expect(e).toMatchObject({ upgrade: "v2", height: 5 });
      expect(new Date(e.time).toISOString()).toBe(e.time);
    }
    const [detected, downloaded, verified, switched, , restarted, first] = events;
    expect(detected.details.info).toBe(env.FAKE_INFO);
    expect(downloaded.details.url).toBe(server.fileUrl("fake-v2"));
    expect(verified.details.checksum).toBe(`sha256:${sha256File(join(h.root, "served", "fake-v2"))}`);
    expect(switched.details).toMatchObject({
      binary: join(h.home, "cosmovisor/upgrades/v2/bin/fake"),
      previous: "genesis",
    });
    expect(switched.details.backup).toMatch(/data-backup-/);
    expect(restarted.details).toMatchObject({ attempt: 1 });
    expect(first.details.height).toBeGreaterThan(5);
    expect(first.details.from).toMatch(/block store/);
  });

  it("a command that blocks does not hold the upgrade back: the new binary runs while the first event waits", async () => {
    const gate = join(h.root, "gate");
    const file = join(h.root, "events.jsonl");
    const notify = script("notify.sh", `while [ ! -e '${gate}' ]; do sleep 0.05; done\ncat >> '${file}'`);
    const v = h.start(["start"], { ...env, VISOR_NOTIFY_CMD: notify, VISOR_NOTIFY_TIMEOUT: "10m" });
    await v.waitFor(/v2 height 6/);
    expect(readlinkSync(join(h.home, "cosmovisor/current"))).toBe("upgrades/v2");
    expect(eventsIn(file)).toEqual([]);
    writeFileSync(gate, "");
    v.proc.kill("SIGTERM");
    // visor sends what it queued before it exits.
    expect(await v.exit()).toBe(0);
    expect(eventsIn(file).map((e) => e.event)).toContain("switched");
  });

  it.each([
    [
      "one that hangs is killed after VISOR_NOTIFY_TIMEOUT",
      "exec sleep 600",
      "200ms",
      /still running after 200 ms \(VISOR_NOTIFY_TIMEOUT\): killed/,
    ],
    // A long timeout, so a loaded machine slow to start the shell never turns the failure into a timeout.
    ["one that fails", "exit 3", "1m", /exited with status 3/],
    ["one that does not exist", null, "1m", /cannot run .*no-such-notify: spawn .* ENOENT/],
  ])("%s: the upgrade goes on, and the failure is logged once", async (_name, body, timeout, logged) => {
    const cmd = body === null ? join(h.root, "no-such-notify") : script("notify.sh", body);
    const v = h.start(["start"], { ...env, VISOR_NOTIFY_CMD: cmd, VISOR_NOTIFY_TIMEOUT: timeout });
    await v.waitFor(/first block after the upgrade/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(v.output).toContain("v2 height 6");
    const warnings = v.lines.filter((l) => l.includes("notification command failed"));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(logged);
  });
});
