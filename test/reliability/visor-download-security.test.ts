// Issue 20, points 7 and 8: what visor may read through a Plan.info URL, how much it may download, whether it
// leaves the disk room, and who owns what it unpacks. Real files, FIFOs, devices, loopback HTTP servers and
// archives built byte by byte; the attacks are the ones the review reproduced.
import { execFileSync } from "node:child_process";
import {
  appendFileSync,
  closeSync,
  copyFileSync,
  existsSync,
  ftruncateSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statfsSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { silentLogger } from "@chaind/core/logger";
import { ReleaseServer } from "@chaind/harness/release-server";
import { extract as extractTar } from "tar";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { installArtifact } from "../../supervisor/src/artifacts/artifact-install.js";
import {
  DEFAULT_DOWNLOAD,
  DEFAULT_MAX_DOWNLOAD_BYTES,
  downloadFile,
} from "../../supervisor/src/artifacts/downloader.js";
import { artifactForPlan } from "../../supervisor/src/artifacts/plan-info.js";
import type { FetchPolicy } from "../../supervisor/src/artifacts/url-fetch.js";
import { loadVisorConfig } from "../../supervisor/src/config/visor-config.js";
import { VisorError } from "../../supervisor/src/errors/visor-error.js";
import { backupData } from "../../supervisor/src/upgrade/data-backup.js";
import { FakeNodeApi } from "../supervisor/fake-node-api.js";
import { fakeBinary, sha256File, visorHome } from "../supervisor/visor-home.js";
import { tarOf } from "./tar-builder.js";
import { canMountTmpfs } from "./tmpfs-mount.js";

/** The error a promise ends with (a VisorError, or whatever escaped). */
async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected a failure");
}

describe("file: URLs under visor (the node's validator key as the upgrade binary)", () => {
  let h: ReturnType<typeof visorHome>;
  let key: string;
  const KEY_TEXT = '{"priv_key":{"value":"VALIDATOR-KEY-DO-NOT-RUN"}}';

  beforeEach(async () => {
    h = visorHome();
    mkdirSync(join(h.home, "config"), { recursive: true });
    key = join(h.home, "config", "priv_validator_key.json");
    writeFileSync(key, KEY_TEXT, { mode: 0o600 });
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
  });
  afterEach(() => h.cleanup());

  const halting = (url: string, extra: Record<string, string> = {}) => ({
    FAKE_HALTS: "v1:3:v2",
    FAKE_INFO: JSON.stringify({ binaries: { any: url } }),
    DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    UNSAFE_SKIP_BACKUP: "true",
    ...extra,
  });
  const upgrades = () => {
    const dir = join(h.home, "cosmovisor", "upgrades");
    return existsSync(dir) ? readdirSync(dir) : [];
  };
  /** Nothing installed anywhere holds the key's bytes. */
  const keyInstalledNowhere = () => {
    const dir = join(h.home, "cosmovisor", "upgrades");
    const walk = (d: string): string[] =>
      readdirSync(d).flatMap((f) => {
        const p = join(d, f);
        return lstatSync(p).isDirectory() ? walk(p) : [readFileSync(p, "utf8")];
      });
    return existsSync(dir) ? walk(dir).every((text) => !text.includes("VALIDATOR-KEY")) : true;
  };

  it("refuses file:///.../config/priv_validator_key.json by default, naming VISOR_ALLOW_FILE_URLS", async () => {
    const v = h.start(["start"], halting(pathToFileURL(key).href));
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(
      /Error: download of file:\/\/\S+priv_validator_key\.json failed: file: URLs are refused; set VISOR_ALLOW_FILE_URLS=true/,
    );
    expect(upgrades()).toEqual([]);
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("genesis");
    expect(keyInstalledNowhere()).toBe(true);
  });

  it("with VISOR_ALLOW_FILE_URLS still refuses the key, directly and through a link placed outside config/", async () => {
    const link = join(h.root, "innocent-binary");
    symlinkSync(key, link);
    for (const url of [pathToFileURL(key).href, pathToFileURL(link).href]) {
      const v = h.start(["start"], halting(url, { VISOR_ALLOW_FILE_URLS: "true" }));
      expect(await v.exit()).toBe(1);
      expect(v.output).toMatch(
        /is inside \S+: file: URLs never read the node's home \(but its cosmovisor\/ folder\) or its data backups/,
      );
      expect(upgrades()).toEqual([]);
      expect(keyInstalledNowhere()).toBe(true);
    }
  });

  it("with VISOR_ALLOW_FILE_URLS (environment or config.toml) installs a regular file from outside the home", async () => {
    const v2 = fakeBinary(h.root, "v2");
    writeFileSync(join(h.home, "cosmovisor", "config.toml"), "VISOR_ALLOW_FILE_URLS = true\n");
    const v = h.start(["start"], halting(`${pathToFileURL(v2).href}?checksum=sha256:${sha256File(v2)}`));
    await v.waitFor(/v2 running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("upgrades/v2");
  });
});

describe("what a file: URL may reach, and how much a download may hold", () => {
  let root: string;
  let home: string;
  let servers: Server[] = [];

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "visor-dl-"));
    home = join(root, "home");
    mkdirSync(join(home, "config"), { recursive: true });
    mkdirSync(join(home, "data"), { recursive: true });
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  afterEach(async () => {
    for (const s of servers) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    servers = [];
  });

  const policy = (over: Partial<FetchPolicy> = {}): FetchPolicy => ({
    allowFileUrls: true,
    home,
    dataBackupDir: home,
    maxDownloadBytes: DEFAULT_MAX_DOWNLOAD_BYTES,
    ...over,
  });
  let n = 0;
  /** Downloads into a fresh folder; answers the outcome and what was left in the folder. */
  const download = async (url: string, p: FetchPolicy, stallTimeoutMs = 3_600_000) => {
    const dir = join(root, `dl-${n++}`);
    mkdirSync(dir);
    const dest = join(dir, "download");
    let result: unknown;
    try {
      result = await downloadFile(
        parseChecksummedUrl(url, false),
        dest,
        { ...DEFAULT_DOWNLOAD, backoffMs: 1, stallTimeoutMs, policy: p },
        { logger: silentLogger },
      );
    } catch (e) {
      result = e;
    }
    return { result, left: readdirSync(dir), dest };
  };
  const serve = async (handler: (res: ServerResponse) => void) => {
    let requests = 0;
    const server = createServer((_req, res) => {
      requests++;
      handler(res);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.push(server);
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/artifact`,
      requests: () => requests,
    };
  };

  it("refuses file:///dev/zero (the endless download of the review) as not a regular file, writing nothing", async () => {
    const { result, left } = await download("file:///dev/zero", policy());
    expect(result).toBeInstanceOf(VisorError);
    expect((result as Error).message).toMatch(/\/dev\/zero is not a regular file/);
    expect(left).toEqual([]);
  });

  it("refuses a FIFO at once (no wait for a writer) as not a regular file", async () => {
    const fifo = join(root, "pipe");
    execFileSync("mkfifo", [fifo]);
    const { result, left } = await download(pathToFileURL(fifo).href, policy());
    expect((result as Error).message).toMatch(/pipe is not a regular file/);
    expect(left).toEqual([]);
  });

  it("refuses the rest of the home (a testnet keyring), data backups, other spellings and hard links; allows cosmovisor/", async () => {
    const secret = (path: string) => {
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, "SECRET");
      return path;
    };
    const keyring = secret(join(home, "keyring-test", "alice.info"));
    const backups = join(root, "backups");
    const backup = secret(join(backups, "data-backup-2026-11-23", "priv_validator_state.json"));
    const hardLink = join(root, "release-binary");
    linkSync(secret(join(root, "elsewhere-key.json")), hardLink);
    const cases: [string, RegExp][] = [
      [keyring, new RegExp(`is inside ${home}: `)],
      [join(home, "cosmovisor", "..", "keyring-test", "alice.info"), new RegExp(`is inside ${home}: `)],
      [backup, /is inside \S+data-backup-2026-11-23: /],
      [hardLink, /has 2 names \(hard links\)/],
    ];
    for (const [path, why] of cases) {
      const { result, left } = await download(pathToFileURL(path).href, policy({ dataBackupDir: backups }));
      expect((result as Error).message).toMatch(why);
      expect(left).toEqual([]);
    }
    // What an operator keeps beside visor's own files is reachable.
    const staged = join(home, "cosmovisor", "releases", "chaind");
    mkdirSync(dirname(staged), { recursive: true });
    writeFileSync(staged, "#!/bin/sh\n");
    const { result } = await download(pathToFileURL(staged).href, policy({ dataBackupDir: backups }));
    expect(result).toMatchObject({ bytes: 10 });
  });

  it("refuses anything in DAEMON_HOME/data, also through a link; a missing file is a clear error", async () => {
    writeFileSync(join(home, "data", "priv_validator_state.json"), "{}");
    symlinkSync(join(home, "data"), join(root, "data-link"));
    for (const path of [
      join(home, "data", "priv_validator_state.json"),
      join(root, "data-link", "priv_validator_state.json"),
    ]) {
      const { result } = await download(pathToFileURL(path).href, policy());
      expect((result as Error).message).toContain(`is inside ${home}: file: URLs never read`);
    }
    const { result } = await download(pathToFileURL(join(root, "nothing-here")).href, policy());
    expect((result as Error).message).toMatch(/cannot open \S+nothing-here: ENOENT/);
  });

  it("refuses a file larger than VISOR_MAX_DOWNLOAD_BYTES before reading it", async () => {
    const big = join(root, "big");
    writeFileSync(big, Buffer.alloc(64 * 1024));
    const { result, left } = await download(pathToFileURL(big).href, policy({ maxDownloadBytes: 1024 }));
    expect((result as Error).message).toMatch(
      /has 65536 bytes, more than VISOR_MAX_DOWNLOAD_BYTES \(1024 bytes\)/,
    );
    expect(left).toEqual([]);
  });

  it("reads a file that keeps growing only as far as it was when opened, never past the limit", async () => {
    const growing = join(root, "growing");
    const chunk = Buffer.alloc(64 * 1024, 1);
    writeFileSync(growing, chunk);
    const grow = setInterval(() => appendFileSync(growing, chunk), 0);
    try {
      const { result } = await download(
        pathToFileURL(growing).href,
        policy({ maxDownloadBytes: 4 * 1024 * 1024 }),
      );
      expect(result).toMatchObject({ bytes: chunk.length });
    } finally {
      clearInterval(grow);
    }
  });

  it("refuses file: plan-info documents unless allowed, and then reads them under the same rules", async () => {
    const doc = join(root, "plan.json");
    writeFileSync(doc, JSON.stringify({ binaries: { any: "https://example.invalid/chaind" } }));
    const off = await failure(
      artifactForPlan(
        pathToFileURL(doc).href,
        { mustHaveChecksum: false, policy: policy({ allowFileUrls: false }) },
        { logger: silentLogger },
      ),
    );
    expect(off.message).toMatch(
      /cannot fetch plan info from file:\S+: file: URLs are refused; set VISOR_ALLOW_FILE_URLS=true/,
    );
    const on = await artifactForPlan(
      pathToFileURL(doc).href,
      { mustHaveChecksum: false, policy: policy() },
      { logger: silentLogger },
    );
    expect(on).toMatchObject({ url: "https://example.invalid/chaind", platform: "any" });
    const inData = join(home, "data", "plan.json");
    copyFileSync(doc, inData);
    const data = await failure(
      artifactForPlan(
        pathToFileURL(inData).href,
        { mustHaveChecksum: false, policy: policy() },
        { logger: silentLogger },
      ),
    );
    expect(data.message).toContain(`is inside ${home}`);
  });

  it("refuses a Content-Length over VISOR_MAX_DOWNLOAD_BYTES before reading the body, and does not retry", async () => {
    // Headers only, the body never comes: reading it would hang this test (the stall timeout is an hour).
    const server = await serve((res) => {
      res.writeHead(200, { "content-length": String(10 * 1024 ** 3) });
      res.flushHeaders();
    });
    const { result, left } = await download(server.url, policy({ maxDownloadBytes: 1024 * 1024 }));
    expect(result).toBeInstanceOf(VisorError);
    expect((result as Error).message).toMatch(
      /failed: the server announces 10737418240 bytes, more than VISOR_MAX_DOWNLOAD_BYTES \(1048576 bytes\)/,
    );
    expect(server.requests()).toBe(1);
    expect(left).toEqual([]);
  });

  it("cuts an endless body without Content-Length as soon as it passes the limit, and does not retry", async () => {
    let sent = 0;
    const server = await serve((res) => {
      res.writeHead(200);
      const chunk = Buffer.alloc(64 * 1024, 2);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) sent += chunk.length;
        if (!res.destroyed) res.once("drain", pump);
      };
      pump();
    });
    const { result, left } = await download(server.url, policy({ maxDownloadBytes: 1024 * 1024 }));
    expect((result as Error).message).toMatch(
      /failed: it sent more than VISOR_MAX_DOWNLOAD_BYTES \(1048576 bytes\)/,
    );
    expect(server.requests()).toBe(1);
    expect(left).toEqual([]);
    // Stopped, not drained: the server could not push more than the limit plus what sockets buffer.
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  it("refuses a download the disk cannot hold (Content-Length over the free space) before reading it", async () => {
    const free = statfsSync(root).bavail * statfsSync(root).bsize;
    const server = await serve((res) => {
      res.writeHead(200, { "content-length": String(free + 1) });
      res.flushHeaders();
    });
    const { result, left } = await download(
      server.url,
      policy({ maxDownloadBytes: Number.MAX_SAFE_INTEGER }),
    );
    expect((result as Error).message).toMatch(/failed: not enough disk space: \S+ has [\d.]+ [KM]iB free/);
    expect(server.requests()).toBe(1);
    expect(left).toEqual([]);
  });

  it.runIf(canMountTmpfs())(
    "a body of unknown length on a disk too small: stopped with a clear error, not retried, nothing left",
    async () => {
      const server = await serve((res) => {
        res.writeHead(200);
        res.end(Buffer.alloc(4 * 1024 * 1024, 3));
      });
      const disk = join(root, "small-disk");
      mkdirSync(disk);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]);
      try {
        const dest = join(disk, "download");
        const err = await failure(
          downloadFile(
            parseChecksummedUrl(server.url, false),
            dest,
            { ...DEFAULT_DOWNLOAD, backoffMs: 1, policy: policy() },
            { logger: silentLogger },
          ),
        );
        // Whichever comes first: visor's look at the free space each MiB, or the disk refusing a write.
        expect(err.message).toMatch(/not enough disk space: \S+ has \d+ KiB free|cannot write \S+: ENOSPC/);
        expect(server.requests()).toBe(1);
        expect(readdirSync(disk)).toEqual([]);
      } finally {
        execFileSync("umount", ["-l", disk]);
      }
    },
  );

  it("VISOR_MAX_DOWNLOAD_BYTES and VISOR_ALLOW_FILE_URLS: defaults, config file, bad values", () => {
    const env = { DAEMON_HOME: home, DAEMON_NAME: "chaind" };
    expect(loadVisorConfig(env)).toMatchObject({ allowFileUrls: false, maxDownloadBytes: 2 * 1024 ** 3 });
    expect(
      loadVisorConfig({ ...env, VISOR_MAX_DOWNLOAD_BYTES: "1000", VISOR_ALLOW_FILE_URLS: "TRUE" }),
    ).toMatchObject({
      allowFileUrls: true,
      maxDownloadBytes: 1000,
    });
    for (const bad of ["0", "-1", "2GiB", "1e9"])
      expect(() => loadVisorConfig({ ...env, VISOR_MAX_DOWNLOAD_BYTES: bad })).toThrow(
        /VISOR_MAX_DOWNLOAD_BYTES/,
      );
    expect(() => loadVisorConfig({ ...env, VISOR_ALLOW_FILE_URLS: "yes" })).toThrow(/VISOR_ALLOW_FILE_URLS/);
  });
});

describe("free space before a backup", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-backup-space-"));
    mkdirSync(join(root, "data"));
    mkdirSync(join(root, "backups"));
    writeFileSync(join(root, "data", "CURRENT"), "MANIFEST-000001\n");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** A sparse file larger than the free space: it costs no blocks, but a copy would need them all. */
  const sparse = (path: string) => {
    const s = statfsSync(root);
    const fd = openSync(path, "w");
    ftruncateSync(fd, s.bavail * s.bsize + 1024 ** 3);
    closeSync(fd);
  };

  it("refuses a backup whose copies would not fit, before writing anything", () => {
    sparse(join(root, "data", "application.db"));
    const e = (() => {
      try {
        backupData(join(root, "data"), join(root, "backups"), { keep: 3 }, { logger: silentLogger });
      } catch (err) {
        return err as Error;
      }
      throw new Error("expected a refusal");
    })();
    expect(e).toBeInstanceOf(VisorError);
    expect(e.message).toMatch(
      /backup of \S+ failed: not enough disk space: .* or set UNSAFE_SKIP_BACKUP=true/,
    );
    expect(readdirSync(join(root, "backups"))).toEqual([]);
  });

  it("counts hard-linked table files as free: the same data as a LevelDB table backs up", () => {
    sparse(join(root, "data", "000005.ldb"));
    const r = backupData(join(root, "data"), join(root, "backups"), { keep: 3 }, { logger: silentLogger });
    expect(r.linked).toBe(1);
    expect(readdirSync(join(root, "backups"))).toEqual([r.dir.split("/").pop()]);
  });
});

describe("archive owners (the review: as root, tar kept the archive's uid 4242 on the binary root runs)", () => {
  const OTHER = 4242;
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "visor-owner-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const archive = () =>
    tarOf(
      [
        { path: "bin/", type: "Directory", uid: OTHER, gid: OTHER },
        { path: "bin/chaind", data: "#!/bin/sh\necho v2\n", mode: 0o755, uid: OTHER, gid: OTHER },
        { path: "lib/", type: "Directory", uid: OTHER, gid: OTHER, mode: 0o2775 },
        { path: "lib/helper", data: "x", mode: 0o4755, uid: OTHER, gid: OTHER },
        { path: "lib/alias", type: "Link", linkpath: "lib/helper", uid: OTHER, gid: OTHER },
      ],
      { gzip: true },
    );

  /** Every path under `dir`, with its owner and mode. */
  const owners = (dir: string) => {
    const out: { path: string; uid: number; gid: number; mode: number }[] = [];
    const walk = (d: string) => {
      for (const f of readdirSync(d)) {
        const p = join(d, f);
        const s = lstatSync(p);
        out.push({ path: p.slice(dir.length + 1), uid: s.uid, gid: s.gid, mode: s.mode & 0o7777 });
        if (s.isDirectory()) walk(p);
      }
    };
    walk(dir);
    return out;
  };

  it("installs every file, folder and hard link as visor's own uid/gid, without set-id bits", async () => {
    const dir = join(root, "staging");
    mkdirSync(dir);
    writeFileSync(join(dir, "download"), archive());
    await installArtifact(join(dir, "download"), dir, "chaind");
    const uid = process.getuid!();
    const gid = process.getgid!();
    const found = owners(dir);
    expect(found.map((f) => f.path).sort()).toEqual(["bin", "bin/chaind", "lib", "lib/alias", "lib/helper"]);
    for (const f of found)
      expect({ path: f.path, uid: f.uid, gid: f.gid }).toEqual({ path: f.path, uid, gid });
    for (const f of found) expect((f.mode & 0o6022).toString(8), f.path).toBe("0");
    if (uid === 0) {
      // The attack needs root: node-tar's default (preserveOwner when root) keeps the archive's owner.
      const naive = join(root, "naive");
      mkdirSync(naive);
      writeFileSync(join(root, "naive.tgz"), archive());
      await extractTar({ file: join(root, "naive.tgz"), cwd: naive });
      expect(lstatSync(join(naive, "bin", "chaind")).uid).toBe(OTHER);
    } else {
      console.log(
        `not root (uid ${uid}): the archive's owner could not be kept anyway; only visor's own ownership is checked`,
      );
    }
  });
});

describe("the window before an unpacked tree is secured (the review: a set-user-ID root binary in a folder anyone could enter)", () => {
  let h: ReturnType<typeof visorHome>;
  let releases: ReleaseServer;
  const servers: FakeNodeApi[] = [];
  const cosmovisor = (...p: string[]) => join(h.home, "cosmovisor", ...p);

  beforeEach(async () => {
    h = visorHome();
    mkdirSync(join(h.root, "served"));
    releases = await ReleaseServer.start({ dir: join(h.root, "served") });
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
  });
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
    await releases.close();
    h.cleanup();
  });

  /** A release whose lib/ asks 0777 and holds a root-owned file asking 06777; answers Plan.info for it. */
  const release = () => {
    const archive = tarOf(
      [
        { path: "bin/fake", data: readFileSync(fakeBinary(h.root, "v2")), mode: 0o755 },
        { path: "lib/", type: "Directory", mode: 0o777 },
        { path: "lib/suid", data: "#!/bin/sh\nid\n", mode: 0o6777 },
      ],
      { gzip: true },
    );
    writeFileSync(join(h.root, "served", "fake-v2.tar.gz"), archive);
    const sha = sha256File(join(h.root, "served", "fake-v2.tar.gz"));
    return JSON.stringify({
      binaries: { any: `${releases.fileUrl("fake-v2.tar.gz")}?checksum=sha256:${sha}` },
    });
  };
  const mode = (p: string) => lstatSync(p).mode & 0o7777;
  /** Every path under `dir` whose mode has a set-id bit or lets others write. */
  const loose = (dir: string): string[] =>
    readdirSync(dir).flatMap((f) => {
      const p = join(dir, f);
      const s = lstatSync(p);
      const own = (s.mode & 0o6022) !== 0 ? [`${p} ${(s.mode & 0o7777).toString(8)}`] : [];
      return s.isDirectory() ? [...own, ...loose(p)] : own;
    });

  it("unpacks in a 0700 staging folder, opened to 0755 only once nothing in it is set-id or writable by others", async () => {
    const info = release();
    const env = {
      FAKE_HALTS: "v1:3:v2",
      FAKE_INFO: info,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
    };
    // Killed once the archive is unpacked, before the folder is renamed into place: the window itself.
    const crashed = h.start(["start"], { ...env, VISOR_CRASH_AT: "extract" });
    await crashed.exit();
    expect((await crashed.proc).signal, crashed.output).toBe("SIGKILL");
    const staging = readdirSync(cosmovisor("upgrades")).filter((f) => f.startsWith(".staging-"));
    expect(staging).toHaveLength(1);
    expect(mode(cosmovisor("upgrades", staging[0])).toString(8)).toBe("700");
    expect(lstatSync(cosmovisor("upgrades", staging[0])).uid).toBe(process.getuid!());

    const v = h.start(["start"], env);
    await v.waitFor(/v2 running/);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(mode(cosmovisor("upgrades", "v2")).toString(8)).toBe("755");
    expect(loose(cosmovisor("upgrades", "v2"))).toEqual([]);
    expect(mode(cosmovisor("upgrades", "v2", "lib", "suid")).toString(8)).toBe("755");
    if (process.getuid!() === 0) {
      // The premise, as root: tar alone keeps the archive's set-id bits (06777 less the umask: 6755).
      const naive = join(h.root, "naive");
      mkdirSync(naive);
      await extractTar({ file: join(h.root, "served", "fake-v2.tar.gz"), cwd: naive });
      expect(mode(join(naive, "lib", "suid")) & 0o6000).toBe(0o6000);
    }
  });

  it("stages a pre-fetch in a 0700 folder too, opened to 0755 once complete", async () => {
    const node = await FakeNodeApi.start({ home: h.home, identity: h.identity });
    servers.push(node);
    node.plan = { name: "v2", height: 50, info: release() };
    const crashed = await h.visor(["prepare-upgrade"], {
      VISOR_RPC_ADDRESS: node.url,
      VISOR_CRASH_AT: "download",
    });
    expect(crashed.signal, crashed.all).toBe("SIGKILL");
    const tmp = readdirSync(cosmovisor("prefetch")).filter((f) => f.startsWith(".tmp-"));
    expect(tmp).toHaveLength(1);
    expect(mode(cosmovisor("prefetch", tmp[0])).toString(8)).toBe("700");

    const prepared = await h.visor(["prepare-upgrade"], { VISOR_RPC_ADDRESS: node.url });
    expect(prepared.exitCode, prepared.all).toBe(0);
    expect(mode(cosmovisor("prefetch", "v2")).toString(8)).toBe("755");
    expect(mode(cosmovisor("prefetch", "v2", "artifact")).toString(8)).toBe("600");
    expect(mode(cosmovisor("prefetch", "v2", ".visor-source.json")).toString(8)).toBe("600");
  });
});
