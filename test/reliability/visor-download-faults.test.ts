import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type ReleaseFault, ReleaseServer } from "@chaind/harness/release-server";
import { c as createTar } from "tar";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fakeBinary, sha256File, visorHome } from "../supervisor/visor-home.js";
import { reportSoakFigures } from "./soak-report.js";
import { canMountTmpfs } from "./tmpfs-mount.js";

describe("visor against a misbehaving release server and a full disk", () => {
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

  /** v1 under visor halting at height 3 for v2, whose archive (padded to `padBytes`) the server offers. */
  async function release(padBytes = 256 * 1024) {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const stage = join(h.root, "stage");
    mkdirSync(join(stage, "bin"), { recursive: true });
    copyFileSync(fakeBinary(h.root, "v2"), join(stage, "bin", "fake"));
    // Random bytes do not compress: the archive is as large as asked, so faults land mid-stream.
    writeFileSync(join(stage, "padding"), randomBytes(padBytes));
    const archive = join(h.root, "served", "v2.tar.gz");
    await createTar({ gzip: true, file: archive, cwd: stage }, ["bin", "padding"]);
    return {
      FAKE_HALTS: "v1:3:v2",
      FAKE_INFO: JSON.stringify({
        binaries: { any: `${server.fileUrl("v2.tar.gz")}?checksum=sha256:${sha256File(archive)}` },
      }),
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      VISOR_DOWNLOAD_STALL_TIMEOUT: "500ms",
    };
  }

  const current = () => readlinkSync(join(h.home, "cosmovisor", "current"));
  const upgrades = () =>
    existsSync(join(h.home, "cosmovisor", "upgrades"))
      ? readdirSync(join(h.home, "cosmovisor", "upgrades"))
      : [];

  const retried: { fault: ReleaseFault; times: number }[] = [
    { fault: "status-500", times: 2 },
    { fault: "drop-midway", times: 1 },
    { fault: "stall", times: 1 },
  ];
  it.each(retried)("$fault x$times: retried, then the verified binary runs", async ({ fault, times }) => {
    const env = await release();
    server.injectFault("v2.tar.gz", fault, times);
    const v = h.start(["start"], env);
    await v.waitFor(/v2 running/, 30_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(server.requests.get("v2.tar.gz")).toBe(times + 1);
    expect(v.output).toMatch(/download failed, retrying/);
    expect(current()).toBe("upgrades/v2");
    reportSoakFigures("visor-faults", { fault, outcome: "retried and upgraded" });
  });

  it.each(["truncated", "corrupt"] as ReleaseFault[])(
    "%s bytes: stopped on the checksum, nothing started or left; the next run upgrades",
    async (fault) => {
      const env = await release();
      server.injectFault("v2.tar.gz", fault);
      const v = h.start(["start"], env);
      expect(await v.exit(30_000)).toBe(1);
      expect(v.output).toMatch(/Error: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/v2\.tar\.gz/);
      expect(server.requests.get("v2.tar.gz")).toBe(1);
      expect(v.output).not.toMatch(/v2 running/);
      expect(current()).toBe("genesis");
      expect(upgrades()).toEqual([]);

      const again = h.start(["start"], env);
      await again.waitFor(/v2 running/, 30_000);
      again.proc.kill("SIGTERM");
      expect(await again.exit()).toBe(0);
      expect(current()).toBe("upgrades/v2");
      reportSoakFigures("visor-faults", { fault, outcome: "stopped with a checksum error, then upgraded" });
    },
  );

  it.runIf(canMountTmpfs())(
    "a disk too small: a clear error before the download, no retry, no partial file; room made, the next run upgrades",
    async () => {
      // DAEMON_HOME on a 1 MiB tmpfs; the artifact is 2 MiB.
      const disk = join(h.root, "disk");
      mkdirSync(disk);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]);
      try {
        h.env.DAEMON_HOME = join(disk, "home");
        const home = h.env.DAEMON_HOME;
        const env = await release(2 * 1024 * 1024);
        const v = h.start(["start"], env);
        expect(await v.exit(30_000)).toBe(1);
        // The server announces 2 MiB: refused before a byte is written (a stream that fills the disk
        // anyway, length unknown, is in visor-download-security.test.ts).
        expect(v.output).toMatch(
          /Error: download of .* failed: not enough disk space: .* has \d+ KiB free, and 2\.0 MiB are needed/,
        );
        expect(v.output).not.toMatch(/download failed, retrying/);
        expect(readlinkSync(join(home, "cosmovisor", "current"))).toBe("genesis");
        expect(readdirSync(join(home, "cosmovisor", "upgrades"))).toEqual([]);

        execFileSync("mount", ["-o", "remount,size=16m", disk]);
        const again = h.start(["start"], env);
        await again.waitFor(/v2 running/, 30_000);
        again.proc.kill("SIGTERM");
        expect(await again.exit()).toBe(0);
        expect(readlinkSync(join(home, "cosmovisor", "current"))).toBe("upgrades/v2");
        reportSoakFigures("visor-faults", {
          fault: "disk-full",
          outcome: "stopped before the download (free space), then upgraded",
        });
      } finally {
        execFileSync("umount", ["-l", disk]);
      }
    },
  );
});
