import { createHash } from "node:crypto";
import {
  chmodSync,
  chownSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goPlatform } from "@chaind/core/go-platform";
import { listenOnPickedPorts, useFreeListenerPorts } from "@chaind/harness/free-listener-ports";
import { LineCollector } from "@chaind/harness/line-collector";
import { execa } from "execa";
import { x as extractTar, t as listTar } from "tar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRelease } from "../../scripts/release.js";
import { aliceSendArgs } from "../node/helpers/chaind-process.js";
import { sha256File } from "../supervisor/visor-home.js";

/** A user id no account of the test machine's has: the squatter's. */
const OTHER_USER = 4242;

/** The fresh private folders (mkdtemp's `chaind-native-XXXXXX`) in `tmp`. */
const temporaryCacheDirs = (tmp: string) => readdirSync(tmp).filter((f) => /^chaind-native-[\w]{6}$/.test(f));

/**
 * Starts `bin` on `home` (listeners already set) with `env`, waits for its RPC, sends twice (the second send
 * starts the signature thread, which loads the library the main thread unpacked), waits for a block holding one, calls
 * `running`, stops it and answers everything it logged.
 */
async function runsAndSigns(
  bin: string,
  home: string,
  to: string,
  env: Record<string, string | undefined> = {},
  running: () => void = () => {},
): Promise<string> {
  const start = execa(bin, ["start", "--home", home], { reject: false, all: true, buffer: false, env });
  const out = new LineCollector(start.all!);
  try {
    // The RPC's HTTP thread runs the code the release embeds for it.
    const rpc = (await out.waitFor(/rpc listening address=(\S+)/))[1];
    const status = (await (await fetch(`${rpc}/status`)).json()) as {
      result: { node_info: { network: string } };
    };
    expect(status.result.node_info.network).toMatch(/-1$/);
    for (let i = 0; i < 2; i++) {
      const sent = await execa(bin, aliceSendArgs(home, rpc, to), { reject: false, env });
      expect(sent.exitCode, sent.stderr).toBe(0);
    }
    await out.waitFor(/signature thread ready .*library=libsecp256k1/);
    await out.waitFor(/committed block .*txs=[1-9]/);
    running();
  } finally {
    start.kill("SIGTERM");
  }
  const done = await start;
  const logged = out.lines.join("\n");
  expect(done.exitCode, logged).toBe(0);
  expect(logged).not.toMatch(/could not be loaded|signature thread (failed|exited)/);
  return logged;
}

describe("npm run release", () => {
  let out: string;
  let unpacked: string;
  let release: { archive: string; sha256: string; planInfo: string };

  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "release-out-"));
    unpacked = mkdtempSync(join(tmpdir(), "release-run-"));
    release = await buildRelease({
      app: "node/src/cli",
      version: "9.8.7",
      out,
      baseUrl: "http://127.0.0.1:1/releases",
    });
    await extractTar({ file: release.archive, cwd: unpacked });
  });
  afterAll(() => {
    rmSync(out, { recursive: true, force: true });
    rmSync(unpacked, { recursive: true, force: true });
  });

  it("names the archive by version and platform, and lists its sha256 in SHA256SUMS and the plan info", () => {
    const [os, arch] = goPlatform().split("/");
    expect(release.archive).toBe(join(out, `chaind-9.8.7-${os}-${arch}.tar.gz`));
    const digest = sha256File(release.archive);
    expect(release.sha256).toBe(digest);
    expect(readFileSync(join(out, "SHA256SUMS"), "utf8")).toBe(
      `${digest}  chaind-9.8.7-${os}-${arch}.tar.gz\n`,
    );
    expect(JSON.parse(release.planInfo)).toEqual({
      binaries: {
        [goPlatform()]: `http://127.0.0.1:1/releases/chaind-9.8.7-${os}-${arch}.tar.gz?checksum=sha256:${digest}`,
      },
    });
  });

  it("runs as one file from another folder with no node_modules: version, testnet home, blocks", async () => {
    expect(statSync(join(unpacked, "bin", "chaind")).mode & 0o111).not.toBe(0);
    expect(existsSync(join(unpacked, "bin", "swagger-ui", "swagger-ui-bundle.js"))).toBe(true);
    // The executable copied away from the archive (as cosmovisor's init does) runs a node; the Swagger UI files
    // travel beside it.
    const bin = join(unpacked, "alone", "chaind");
    mkdirSync(join(unpacked, "alone"));
    copyFileSync(join(unpacked, "bin", "chaind"), bin);
    chmodSync(bin, 0o755);
    cpSync(join(unpacked, "bin", "swagger-ui"), join(unpacked, "alone", "swagger-ui"), { recursive: true });
    const version = await execa(bin, ["version", "--long", "-o", "json"], { cwd: tmpdir() });
    expect(JSON.parse(version.stdout)).toMatchObject({ name: "chaind", version: "9.8.7" });

    const home = join(unpacked, "home");
    const cache = join(unpacked, "cache");
    const made = await execa(
      bin,
      ["testnet", "--home", home, "--chain-id", "release-1", "--block-time", "100ms"],
      { reject: false, env: { XDG_CACHE_HOME: cache } },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    // Making the test keys loaded libsecp256k1 from the copy embedded in the file, without falling back.
    expect(made.stderr).not.toContain("libsecp256k1 could not be loaded");
    expect(readdirSync(join(cache, "chaind-native")).filter((f) => f.startsWith("secp256k1"))).toHaveLength(
      1,
    );
    await useFreeListenerPorts(home);
    const to = JSON.parse(made.stdout).keys[1].address as string;
    await runsAndSigns(bin, home, to);
  });

  it("keeps its native libraries and compiled code out of reach of other users: a squatted cache path does not stop it", async () => {
    // As another user would: the shared temporary folder (its own TMPDIR here) holds the name an older release
    // used, chaind-native-<uid>, made first by uid 4242; HOME is the user's, XDG_CACHE_HOME unset.
    const box = join(unpacked, "squatted");
    const tmp = join(box, "tmp");
    const user = join(box, "user");
    mkdirSync(tmp, { recursive: true });
    chmodSync(tmp, 0o1777);
    mkdirSync(user);
    const old = join(tmp, `chaind-native-${process.getuid!()}`);
    mkdirSync(old, { mode: 0o755 });
    chownSync(old, OTHER_USER, OTHER_USER);
    const env = { HOME: user, TMPDIR: tmp, XDG_CACHE_HOME: undefined };
    // Without the code cache the release ships, so its first run keeps one of its own.
    const bin = join(box, "bin", "chaind");
    cpSync(join(unpacked, "bin", "swagger-ui"), join(box, "bin", "swagger-ui"), { recursive: true });
    copyFileSync(join(unpacked, "bin", "chaind"), bin);
    chmodSync(bin, 0o755);
    const home = join(box, "node");
    const made = await execa(
      bin,
      ["testnet", "--home", home, "--chain-id", "squat-1", "--block-time", "100ms"],
      {
        reject: false,
        env,
      },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const to = JSON.parse(made.stdout).keys[1].address as string;
    listenOnPickedPorts(home);
    await runsAndSigns(bin, home, to, env);
    // Everything went to the user's cache home, private; the squatted folder was left alone.
    const cacheDir = join(user, ".cache", "chaind-native");
    expect(statSync(cacheDir).mode & 0o077).toBe(0);
    const kept = readdirSync(cacheDir);
    const libraries = kept.filter((f) => /^(classic-level|secp256k1)[\w.]*-[0-9a-f]{16}\.node$/.test(f));
    expect(libraries).toHaveLength(2);
    expect(kept.filter((f) => f.endsWith(".code-cache")).length).toBeGreaterThan(0);
    expect(readdirSync(old)).toEqual([]);
    expect(temporaryCacheDirs(tmp)).toEqual([]);

    // The cache folder itself taken by another user, then a file in its place: the node still runs (and its
    // signature thread loads the library the main thread wrote), from a fresh private folder it removes at exit.
    const squats: [string, () => void][] = [
      [
        "a folder of another user's",
        () => {
          rmSync(cacheDir, { recursive: true });
          mkdirSync(cacheDir, { mode: 0o755 });
          chownSync(cacheDir, OTHER_USER, OTHER_USER);
        },
      ],
      [
        "a file",
        () => {
          rmSync(cacheDir, { recursive: true });
          writeFileSync(cacheDir, "");
        },
      ],
    ];
    for (const [what, squat] of squats) {
      squat();
      const whileRunning: string[][] = [];
      const logged = await runsAndSigns(bin, home, to, env, () => {
        const dirs = temporaryCacheDirs(tmp);
        whileRunning.push(dirs, dirs.length === 1 ? readdirSync(join(tmp, dirs[0])) : []);
        for (const d of dirs) expect(statSync(join(tmp, d)).mode & 0o777, what).toBe(0o700);
      });
      expect(logged, what).toContain(`warning: ${cacheDir} is not a private folder of this user's`);
      expect(whileRunning[0], what).toHaveLength(1);
      expect(
        whileRunning[1].filter((f) => f.endsWith(".node")),
        what,
      ).toHaveLength(2);
      expect(temporaryCacheDirs(tmp), what).toEqual([]);
      if (statSync(cacheDir).isDirectory()) expect(readdirSync(cacheDir), what).toEqual([]);
    }

    // No HOME at all: a private temporary folder too, without a warning.
    const homeless = await execa(bin, ["version"], { env: { ...env, HOME: undefined } });
    expect(homeless.stdout).toBe("9.8.7");
    expect(homeless.stderr).toBe("");
    expect(temporaryCacheDirs(tmp)).toEqual([]);
  });

  it("compiles its program once into the private cache and then runs from it; a damaged cache is replaced, an unsafe folder unused", async () => {
    const cache = join(unpacked, "code-cache");
    // Copied alone, without the cache the release ships beside it (as cosmovisor's init copies it).
    const bin = join(unpacked, "solo", "chaind");
    mkdirSync(join(unpacked, "solo"));
    copyFileSync(join(unpacked, "bin", "chaind"), bin);
    chmodSync(bin, 0o755);
    const version = async () => {
      const r = await execa(bin, ["version"], { env: { XDG_CACHE_HOME: cache } });
      expect(r.stdout).toBe("9.8.7");
    };
    await version();
    const dir = join(cache, "chaind-native");
    const [name, ...others] = readdirSync(dir).filter((f) => f.endsWith(".code-cache"));
    expect(others).toEqual([]);
    const file = join(dir, name);
    expect(statSync(file).mode & 0o077).toBe(0);
    const written = statSync(file);
    expect(written.size).toBeGreaterThan(10_000);

    // Used as it is: a cache V8 refused would be written again, as a new file.
    await version();
    expect(statSync(file).ino).toBe(written.ino);

    writeFileSync(file, "not compiled code");
    await version();
    expect(statSync(file).size).toBeGreaterThan(10_000);

    writeFileSync(file, "planted");
    chmodSync(dir, 0o777);
    try {
      await version();
      expect(readFileSync(file, "utf8")).toBe("planted");
    } finally {
      chmodSync(dir, 0o700);
    }
  });

  it("ships the code cache of a node's start-up in the archive, which the first run on a machine takes", async () => {
    const listed: string[] = [];
    await listTar({ file: release.archive, onReadEntry: (e) => listed.push(e.path) });
    expect(listed).toContain("bin/chaind.code-cache");
    const shipped = readFileSync(join(unpacked, "bin", "chaind.code-cache"));
    // The program's digest (the one the launcher names its kept caches by), the sha256 of the rest, then a
    // cache the launcher kept after a node's start-up (first byte 1), not one a short command left at its exit.
    expect(shipped.toString("latin1", 0, 16)).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(join(unpacked, "bin", "chaind"), "latin1")).toContain(
      shipped.toString("latin1", 0, 16),
    );
    expect(createHash("sha256").update(shipped.subarray(48)).digest()).toEqual(shipped.subarray(16, 48));
    expect(shipped[48]).toBe(1);

    const cache = join(unpacked, "first-run-cache");
    const first = await execa(join(unpacked, "bin", "chaind"), ["version"], {
      env: { XDG_CACHE_HOME: cache, RELEASE_CODE_CACHE_DEBUG: "1" },
    });
    expect(first.stdout).toBe("9.8.7");
    expect(first.stderr).toBe("code cache: shipped accepted");
    // Taken as it is: nothing compiled here, so nothing kept.
    expect(readdirSync(join(cache, "chaind-native")).filter((f) => f.endsWith(".code-cache"))).toEqual([]);
  });

  it("refuses a damaged, foreign, other program's or unsafe shipped cache silently: compiles, runs and keeps its own", async () => {
    const good = readFileSync(join(unpacked, "bin", "chaind.code-cache"));
    const resealed = (body: Buffer) =>
      Buffer.concat([good.subarray(0, 16), createHash("sha256").update(body).digest(), body]);
    const damaged = Buffer.from(good);
    damaged[good.length >> 1] ^= 0xff;
    // What another V8 wrote: its version hash (bytes 4-7 of V8's header, after the launcher's kind byte) differs;
    // resealed, so only V8 can tell.
    const foreignBody = Buffer.from(good.subarray(48));
    for (let i = 5; i < 9; i++) foreignBody[i] ^= 0xff;
    const otherProgram = Buffer.concat([Buffer.from("0123456789abcdef", "latin1"), good.subarray(16)]);
    const cases = {
      damaged,
      foreign: resealed(foreignBody),
      otherProgram,
      truncated: good.subarray(0, 1000),
      // Intact, but others could have written it (as anyone can plant one beside a binary copied into /tmp).
      writableByOthers: good,
    };
    for (const [what, bytes] of Object.entries(cases)) {
      const dir = join(unpacked, `refused-${what}`);
      mkdirSync(dir);
      copyFileSync(join(unpacked, "bin", "chaind"), join(dir, "chaind"));
      chmodSync(join(dir, "chaind"), 0o755);
      writeFileSync(join(dir, "chaind.code-cache"), bytes);
      chmodSync(join(dir, "chaind.code-cache"), what === "writableByOthers" ? 0o666 : 0o644);
      const told = await execa(join(dir, "chaind"), ["version"], {
        env: { XDG_CACHE_HOME: join(dir, "debug-cache"), RELEASE_CODE_CACHE_DEBUG: "1" },
      });
      expect(told.stderr, what).toBe("code cache: shipped rejected");
      const cache = join(dir, "cache");
      const plain = await execa(join(dir, "chaind"), ["version"], { env: { XDG_CACHE_HOME: cache } });
      expect(plain.stdout, what).toBe("9.8.7");
      expect(plain.stderr, what).toBe("");
      expect(
        readdirSync(join(cache, "chaind-native")).filter((f) => f.endsWith(".code-cache")),
        what,
      ).toHaveLength(1);
    }
  });
});

describe("npm run release bundles sources", () => {
  it("refuses code compiled into a workspace's dist/, which may be stale", async () => {
    const dir = mkdtempSync(join(tmpdir(), "release-dist-"));
    try {
      const compiled = join(import.meta.dirname, "../../node/dist/server/rest/rest-routes-doc.js");
      const app = join(dir, "main.ts");
      writeFileSync(app, `import * as m from ${JSON.stringify(compiled)};\nconsole.log(Object.keys(m));\n`);
      await expect(buildRelease({ app, version: "1.0.0", out: join(dir, "out") })).rejects.toThrow(
        /^the bundle would take compiled code instead of sources: node\/dist\/server\/rest\/[\w-]+\.js$/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
