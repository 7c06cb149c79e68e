import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ReleaseServer } from "@chaind/harness/release-server";
import { c as createTar } from "tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CrashPoint } from "../../supervisor/src/host/crash-point.js";
import { fakeBinary, sha256File, visorHome } from "./visor-home.js";

const POINTS: CrashPoint[] = [
  "detected",
  "backup",
  "custom-pre-upgrade",
  "download",
  "extract",
  "marker",
  "switch",
  "pre-upgrade",
];

describe("visor killed with SIGKILL at each step of an upgrade finishes it when started again", () => {
  let h: ReturnType<typeof visorHome>;
  let server: ReleaseServer;

  beforeEach(async () => {
    h = visorHome();
    mkdirSync(join(h.root, "served"));
    server = await ReleaseServer.start({ dir: join(h.root, "served") });
  });
  afterEach(async () => {
    await server.close();
    h.cleanup();
  });

  const cosmovisor = (...p: string[]) => join(h.home, "cosmovisor", ...p);

  /** What must hold whenever visor is not running: `current` names a whole, verified folder. */
  const expectConsistentLayout = (v2Sha: string) => {
    const current = readlinkSync(cosmovisor("current"));
    expect(["genesis", "upgrades/v2"]).toContain(current);
    const bin = cosmovisor(current, "bin", "fake");
    expect(statSync(bin).mode & 0o111).not.toBe(0);
    if (current === "upgrades/v2") expect(sha256File(bin)).toBe(v2Sha);
    for (const d of existsSync(cosmovisor("upgrades")) ? readdirSync(cosmovisor("upgrades")) : [])
      if (!d.startsWith(".staging-"))
        expect(sha256File(cosmovisor("upgrades", d, "bin", "fake"))).toBe(v2Sha);
  };

  it.each(POINTS)("killed at %s", async (point) => {
    await h.visor(["init", fakeBinary(h.root, "v1")]);
    const stage = join(h.root, "stage");
    mkdirSync(join(stage, "bin"), { recursive: true });
    copyFileSync(fakeBinary(h.root, "v2"), join(stage, "bin", "fake"));
    const archive = join(h.root, "served", "fake-v2.tar.gz");
    await createTar({ gzip: true, file: archive, cwd: stage }, ["bin"]);
    const v2Sha = sha256File(join(stage, "bin", "fake"));
    writeFileSync(cosmovisor("custom.sh"), `#!/bin/sh\necho "$1 $2" >> "${h.home}/custom-calls"\n`);
    chmodSync(cosmovisor("custom.sh"), 0o755);
    // Enough data files that the backup is cut in the middle of its copy.
    mkdirSync(join(h.home, "data", "application.db"), { recursive: true });
    for (let i = 0; i < 6; i++)
      writeFileSync(join(h.home, "data", "application.db", `00000${i}.ldb`), `t${i}`);
    const env = {
      FAKE_HALTS: "v1:4:v2",
      FAKE_INFO: JSON.stringify({
        binaries: { any: `${server.fileUrl("fake-v2.tar.gz")}?checksum=sha256:${sha256File(archive)}` },
      }),
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      COSMOVISOR_CUSTOM_PREUPGRADE: "custom.sh",
    };

    const crashed = h.start(["start"], { ...env, VISOR_CRASH_AT: point });
    await crashed.exit();
    expect((await crashed.proc).signal, crashed.output).toBe("SIGKILL");
    expect(crashed.output).toMatch(/upgrade detected .*plan=v2/);
    expectConsistentLayout(v2Sha);

    const again = h.start(["start"], env);
    await again.waitFor(/v2 running/);
    again.proc.kill("SIGTERM");
    expect(await again.exit(), again.output).toBe(0);

    expect(readlinkSync(cosmovisor("current"))).toBe("upgrades/v2");
    expectConsistentLayout(v2Sha);
    // Nothing half-done is left: no staging folder, spare link, partial backup or unfinished pre-upgrade.
    expect(readdirSync(cosmovisor("upgrades"))).toEqual(["v2"]);
    expect(readdirSync(cosmovisor()).filter((f) => f.startsWith("current.new-"))).toEqual([]);
    expect(readdirSync(h.home).filter((f) => f.endsWith(".partial"))).toEqual([]);
    expect(existsSync(cosmovisor("upgrades", "v2", ".pre-upgrade-pending"))).toBe(false);
    // Killed while `pre-upgrade` ran: the next start runs it again before the new binary (cosmovisor would not).
    expect(readFileSync(join(h.home, "preupgrade-calls"), "utf8")).toBe(
      point === "pre-upgrade" ? "v2:0\nv2:0\n" : "v2:0\n",
    );
    expect(readFileSync(join(h.home, "custom-calls"), "utf8")).toMatch(/^(v2 4\n)+$/);
    const backups = readdirSync(h.home).filter((f) => f.startsWith("data-backup-"));
    expect(backups.length).toBeGreaterThanOrEqual(1);
    for (const b of backups)
      expect(readdirSync(join(h.home, b, "application.db")).sort()).toEqual(
        readdirSync(join(h.home, "data", "application.db")).sort(),
      );
  });

  it("a visor killed while its daemon runs: the next visor stops that daemon before it launches its own", async () => {
    await h.visor(["init", fakeBinary(h.root, "v1")]);
    const status = () => JSON.parse(readFileSync(cosmovisor("visor-status.json"), "utf8"));
    const alive = (pid: number) => {
      try {
        // A zombie (exited, not yet reaped by whoever adopted it) has stopped running.
        return !readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].startsWith("Z");
      } catch {
        return false;
      }
    };
    const first = h.start(["start"]);
    await first.waitFor(/v1 height 2/);
    const orphan = status().child_pid as number;
    first.proc.kill("SIGKILL");
    // Not first.exit(): the orphan holds visor's output pipe open until it is stopped.
    await new Promise((r) => first.proc.once("exit", r));
    try {
      // SIGKILL gives visor no chance to stop its child: it is still there.
      expect(alive(orphan)).toBe(true);
      const second = h.start(["start"]);
      await second.waitFor(new RegExp(`earlier visor still runs: stopping it first .*pid=${orphan}`));
      await second.waitFor(/starting daemon/);
      expect(alive(orphan)).toBe(false);
      await second.waitFor(/v1 height/);
      expect(status().child_pid).not.toBe(orphan);
      second.proc.kill("SIGTERM");
      expect(await second.exit(), second.output).toBe(0);
      await first.proc;
    } finally {
      if (alive(orphan)) process.kill(orphan, "SIGKILL");
    }
  });
});
