import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { goPlatform } from "@chaind/core/go-platform";
import { execa } from "execa";
import { x as extractTar } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildVisorRelease, type VisorRelease } from "../../scripts/release.js";
import { upgradeForeignDaemon } from "../supervisor/archive-upgrade.js";
import { type Codec, compress, missingCompressors, tarOf, zipOf } from "../supervisor/release-archives.js";
import { sha256File } from "../supervisor/visor-home.js";

const ROOT = join(import.meta.dirname, "..", "..");
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, "supervisor", "package.json"), "utf8")) as { version: string }
).version;
const FAKE_DAEMON = join(ROOT, "fixtures", "daemons", "fake-daemon.cjs");
/** A user id no account of the test machine's has: the squatter's. */
const OTHER_USER = 4242;
const COMMANDS = [
  "init",
  "run",
  "version",
  "config",
  "add-upgrade",
  "add-batch-upgrade",
  "prepare-upgrade",
  "show-upgrade-info",
  "status",
];

describe("npm run release -- --visor", () => {
  let work: string;
  let release: VisorRelease;
  /** The unpacked archive: an empty folder but for what the archive holds. */
  let unpacked: string;
  /** A folder holding nothing but a link to the node executable: the whole PATH visor runs with. */
  let nodeOnly: string;
  let cache: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "visor-release-"));
    release = await buildVisorRelease({ out: join(work, "releases") });
    unpacked = join(work, "visor");
    mkdirSync(unpacked);
    await extractTar({ file: release.archive, cwd: unpacked });
    nodeOnly = join(work, "node-only");
    mkdirSync(nodeOnly);
    symlinkSync(process.execPath, join(nodeOnly, "node"));
    cache = join(work, "cache");
  }, 180_000);
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** bin/visor run from the unpacked folder with PATH, the native-library cache and `env`, nothing else. */
  const visor = (args: string[], env: Record<string, string> = {}) =>
    execa(join(unpacked, "bin", "visor"), args, {
      cwd: unpacked,
      env: { PATH: nodeOnly, XDG_CACHE_HOME: cache, ...env },
      extendEnv: false,
      reject: false,
    });

  it("names the archive by supervisor/package.json's version and the platform, listed in SHA256SUMS", () => {
    const [os, arch] = goPlatform().split("/");
    expect(release.version).toBe(VERSION);
    expect(basename(release.archive)).toBe(`visor-${VERSION}-${os}-${arch}.tar.gz`);
    const digest = sha256File(release.archive);
    expect(release.sha256).toBe(digest);
    expect(readFileSync(join(work, "releases", "SHA256SUMS"), "utf8")).toBe(
      `${digest}  visor-${VERSION}-${os}-${arch}.tar.gz\n`,
    );
  });

  it("holds one executable file, bin/visor", () => {
    expect(readdirSync(unpacked, { recursive: true }).map(String).sort()).toEqual([
      "bin",
      join("bin", "visor"),
    ]);
    expect(statSync(join(unpacked, "bin", "visor")).mode & 0o111).not.toBe(0);
  });

  it("runs with nothing but node on PATH: version and help", async () => {
    const only = await visor(["version", "--cosmovisor-only"]);
    expect(only.exitCode, only.stderr).toBe(0);
    expect(only.stdout).toBe(`visor version: ${VERSION}`);
    const json = await visor(["version", "--cosmovisor-only", "-o", "json"]);
    expect(JSON.parse(json.stdout)).toEqual({ cosmovisor_version: VERSION });

    // As cosmovisor: its own version first, then the daemon's, which needs a configured home.
    const unconfigured = await visor(["version"]);
    expect(unconfigured.stdout).toBe(`visor version: ${VERSION}`);
    expect(unconfigured.stderr.trim()).toBe(
      "Error: DAEMON_HOME: not set; expected an absolute path\nDAEMON_NAME: not set; expected a file name",
    );
    expect(unconfigured.exitCode).toBe(1);

    const help = await visor(["help"]);
    expect(help.exitCode, help.stderr).toBe(0);
    for (const command of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^ {2}visor ${command}\\b`, "m"));
  });

  it("installs a daemon and reports its version beside its own", async () => {
    const daemon = join(work, "fake");
    copyFileSync(FAKE_DAEMON, daemon);
    chmodSync(daemon, 0o755);
    const env = { DAEMON_HOME: join(work, "home"), DAEMON_NAME: "fake" };
    const init = await visor(["init", daemon], env);
    expect(init.exitCode, init.stderr).toBe(0);
    const version = await visor(["version", "-o", "json"], env);
    expect(version.exitCode, version.stderr).toBe(0);
    expect(JSON.parse(version.stdout)).toEqual({
      cosmovisor_version: VERSION,
      app_version: { name: "fake", version: "v1" },
    });
  });

  it("loads its embedded LevelDB library from a private cache, rewriting a planted one", async () => {
    // `status` reads the home's height from LevelDB; commands that never open it (version) do not load it.
    const daemon = join(work, "fake-leveldb");
    copyFileSync(FAKE_DAEMON, daemon);
    chmodSync(daemon, 0o755);
    const env = { DAEMON_HOME: join(work, "leveldb-home"), DAEMON_NAME: "fake" };
    expect((await visor(["init", daemon], env)).exitCode).toBe(0);
    const status = () => visor(["status"], env);
    const first = await status();
    expect(first.exitCode, first.stderr).toBe(0);
    const dir = join(cache, "visor-native");
    expect(statSync(dir).mode & 0o077).toBe(0);
    const [library] = readdirSync(dir).filter((f) => f.endsWith(".node"));
    expect(library).toMatch(/^classic-level-[0-9a-f]{16}\.node$/);
    const embedded = readFileSync(join(dir, library));

    writeFileSync(join(dir, library), "not a shared library");
    const replanted = await status();
    expect(replanted.exitCode, replanted.stderr).toBe(0);
    expect(readFileSync(join(dir, library)).equals(embedded)).toBe(true);

    // A folder others could write to is not used (a run takes a private temporary one), nor written to.
    writeFileSync(join(dir, library), "planted");
    chmodSync(dir, 0o777);
    try {
      const open = await status();
      expect(open.exitCode, open.stderr).toBe(0);
      expect(open.stderr).toContain(`warning: ${dir} is not a private folder of this user's`);
      expect(readFileSync(join(dir, library), "utf8")).toBe("planted");
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it("runs a daemon through an upgrade when another user holds its cache path: the old shared one, or its own", async () => {
    // As another user would: the shared temporary folder (its own TMPDIR here) holds the name an older release
    // used, visor-native-<uid>, made first by uid 4242; HOME is the user's, XDG_CACHE_HOME unset.
    const box = join(work, "squatted");
    const tmp = join(box, "tmp");
    const user = join(box, "user");
    mkdirSync(tmp, { recursive: true });
    chmodSync(tmp, 0o1777);
    mkdirSync(user);
    const old = join(tmp, `visor-native-${process.getuid!()}`);
    mkdirSync(old, { mode: 0o755 });
    chownSync(old, OTHER_USER, OTHER_USER);
    const temporary = () => readdirSync(tmp).filter((f) => /^visor-native-\w{6}$/.test(f));
    const upgrade = () =>
      upgradeForeignDaemon({
        fileName: "fake-v2.gz",
        release: (b) => compress(b, "gzip"),
        planInfo: (s, a) =>
          JSON.stringify({
            binaries: {
              any: `${s.url("fake-v2.gz")}?checksum=sha512:${createHash("sha512").update(a).digest("hex")}`,
            },
          }),
        visor: { file: join(unpacked, "bin", "visor"), env: { PATH: nodeOnly, HOME: user, TMPDIR: tmp } },
      });
    const first = await upgrade();
    expect(first, first.output).toMatchObject({ code: 0, current: "upgrades/v2" });
    const cacheDir = join(user, ".cache", "visor-native");
    expect(statSync(cacheDir).mode & 0o077).toBe(0);
    expect(readdirSync(cacheDir).filter((f) => /^classic-level-[0-9a-f]{16}\.node$/.test(f))).toHaveLength(1);
    expect(readdirSync(old)).toEqual([]);
    expect(temporary()).toEqual([]);

    // Its own cache folder taken too: a fresh private one in the temporary folder, removed as visor exits.
    rmSync(cacheDir, { recursive: true });
    mkdirSync(cacheDir, { mode: 0o755 });
    chownSync(cacheDir, OTHER_USER, OTHER_USER);
    const second = await upgrade();
    expect(second, second.output).toMatchObject({ code: 0, current: "upgrades/v2" });
    expect(second.output).toContain(`warning: ${cacheDir} is not a private folder of this user's`);
    expect(readdirSync(cacheDir)).toEqual([]);
    expect(temporary()).toEqual([]);
  });

  it("unpacks every release format with the decoders it bundles: zip, tar.xz, tar.zst, tar.bz2, bare .gz", async () => {
    const formats: [string, Codec | null, (b: Buffer) => Buffer | Promise<Buffer>][] = [
      ["fake-v2.zip", null, (b) => zipOf([{ name: "bin/fake", data: b, mode: 0o100755 }])],
      ["fake-v2.tar.xz", "xz", (b) => compress(tarOf([{ path: "bin/fake", data: b, mode: 0o755 }]), "xz")],
      [
        "fake-v2.tar.zst",
        "zstd",
        (b) => compress(tarOf([{ path: "bin/fake", data: b, mode: 0o755 }]), "zstd"),
      ],
      ["fake-v2.tar.bz2", "bzip2", (b) => compress(tarOf([{ path: "fake", data: b, mode: 0o755 }]), "bzip2")],
      ["fake-v2.gz", "gzip", (b) => compress(b, "gzip")],
    ];
    const missing = missingCompressors();
    if (missing.length) console.warn(`skipping bzip2/xz/zstd releases: ${missing.join(", ")} not installed`);
    for (const [fileName, codec, release] of formats) {
      if (codec && codec !== "gzip" && missing.length) continue;
      const r = await upgradeForeignDaemon({
        fileName,
        release,
        planInfo: (s, a) =>
          JSON.stringify({
            binaries: {
              any: `${s.url(fileName)}?checksum=sha512:${createHash("sha512").update(a).digest("hex")}`,
            },
          }),
        visor: { file: join(unpacked, "bin", "visor"), env: { PATH: nodeOnly, XDG_CACHE_HOME: cache } },
      });
      expect(r, `${fileName}: ${r.output}`).toMatchObject({ code: 0, current: "upgrades/v2" });
      expect(r.ran, fileName).toMatch(/^pre-upgrade .*\nstart/);
    }
  });
});
