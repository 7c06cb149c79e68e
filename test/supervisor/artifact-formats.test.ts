import { execFileSync } from "node:child_process";
import {
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
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { installArtifact, type UnpackLimits } from "../../supervisor/src/artifacts/artifact-install.js";
import {
  type Codec,
  compress,
  infoZipOf,
  missingCompressors,
  missingZipWriters,
  pythonZipOf,
  renameInZip,
  tarOf,
  zipOf,
} from "./release-archives.js";

const BINARY = "#!/bin/sh\necho v2\n";
const missing = missingCompressors();
if (missing.length) console.warn(`skipping bzip2/xz/zstd archive tests: ${missing.join(", ")} not installed`);
const codecs: Codec[] = missing.length ? ["gzip"] : ["gzip", "bzip2", "xz", "zstd"];
const noZipWriters = missingZipWriters();
if (noZipWriters.length) console.warn(`skipping foreign zip tests: ${noZipWriters.join(", ")} not installed`);

/** A release's tar: bin/fake, executable, and release notes beside it. */
const releaseTar = () =>
  tarOf([
    { path: "bin/", type: "Directory" },
    { path: "bin/fake", data: BINARY, mode: 0o755 },
    { path: "README", data: "notes\n" },
  ]);

/** The bytes at `offset` of a zip's records with `signature`, rewritten (a lying size, as a bomb has). */
function patchU32(zip: Buffer, signature: number, offset: number, value: number): Buffer {
  const out = Buffer.from(zip);
  const sig = Buffer.alloc(4);
  sig.writeUInt32LE(signature);
  for (let at = out.indexOf(sig); at >= 0; at = out.indexOf(sig, at + 4))
    out.writeUInt32LE(value, at + offset);
  return out;
}

describe("artifacts told by their content, each under the archive protections", () => {
  let root: string;
  let n = 0;
  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), "visor-formats-"));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  /** Installs `bytes` as visor does (downloaded to `download` in a staging folder); answers the folder. */
  async function install(bytes: Buffer, limits?: UnpackLimits) {
    const dir = join(root, `staging-${n++}`);
    mkdirSync(dir);
    writeFileSync(join(dir, "download"), bytes);
    let error: Error | null = null;
    try {
      await installArtifact(join(dir, "download"), dir, "fake", limits);
    } catch (e) {
      error = e as Error;
    }
    return { dir, error };
  }

  /** A refusal leaves the staging folder as install found it: nothing unpacked, no scratch file. */
  async function refused(bytes: Buffer, why: RegExp, limits?: UnpackLimits) {
    const { dir, error } = await install(bytes, limits);
    expect(error?.message).toMatch(why);
    expect((error as { code?: string }).code).toBe("ARCHIVE");
    expect(readdirSync(dir)).toEqual(["bin"]);
    expect(readdirSync(join(dir, "bin"))).toEqual([]);
    expect(existsSync(join(root, "x"))).toBe(false);
  }

  const installs = async (bytes: Buffer, extra: string[] = []) => {
    const { dir, error } = await install(bytes);
    expect(error).toBeNull();
    const bin = join(dir, "bin", "fake");
    expect(readFileSync(bin, "utf8")).toBe(BINARY);
    expect(statSync(bin).mode & 0o777).toBe(0o755);
    expect(execFileSync(bin, { encoding: "utf8" })).toBe("v2\n");
    expect(readdirSync(dir).sort()).toEqual(["bin", ...extra].sort());
  };

  it("installs a plain binary and a bare tar", async () => {
    await installs(Buffer.from(BINARY));
    await installs(releaseTar(), ["README"]);
  });

  it.each(codecs)(
    "installs a tar compressed with %s, and a bare binary compressed with it",
    async (codec) => {
      await installs(compress(releaseTar(), codec), ["README"]);
      await installs(compress(Buffer.from(BINARY), codec));
    },
  );

  it("installs a zip, with bin/<name> or <name> at the top, executable or not in the archive", async () => {
    await installs(
      await zipOf([
        { name: "bin/", mode: 0o40755 },
        { name: "bin/fake", data: BINARY, mode: 0o100755 },
        { name: "docs/README", data: "notes\n" },
      ]),
      ["docs"],
    );
    await installs(await zipOf([{ name: "fake", data: BINARY, mode: 0o100644, store: true }]));
  });

  it.skipIf(noZipWriters.includes("python3"))(
    "installs a zip from Python's zipfile whose entries carry permission bits and no file type, as Go reads it",
    async () => {
      await installs(
        pythonZipOf([
          { name: "bin/", mode: 0o755 },
          { name: "bin/fake", data: BINARY, mode: 0o755 },
          { name: "docs/README", data: "notes\n", mode: 0o644 },
        ]),
        ["docs"],
      );
      // Not executable in the archive: installed executable all the same, as the daemon must run.
      await installs(pythonZipOf([{ name: "fake", data: BINARY, mode: 0o644 }]));
    },
  );

  it.skipIf(noZipWriters.includes("python3"))(
    "refuses a Python zipfile entry that is a symbolic link, or of a file type no system has",
    async () => {
      await refused(
        pythonZipOf([{ name: "bin/fake", data: "/etc/passwd", mode: 0o120777 }]),
        /entry "bin\/fake" is a symbolic link: visor unpacks only files and folders/,
      );
      await refused(
        pythonZipOf([{ name: "odd", data: "x", mode: 0o030755 }]),
        /entry "odd" has an unknown file type/,
      );
    },
  );

  it.skipIf(noZipWriters.includes("zip"))(
    "installs a zip from Info-ZIP's zip, and refuses the symbolic link `zip -y` stores",
    async () => {
      await installs(
        infoZipOf([
          { path: "bin/fake", data: BINARY, mode: 0o755 },
          { path: "docs/README", data: "notes\n" },
        ]),
        ["docs"],
      );
      await refused(
        infoZipOf([{ path: "bin/fake", linkTo: "/etc/passwd" }]),
        /entry "bin\/fake" is a symbolic link: visor unpacks only files and folders/,
      );
    },
  );

  it("refuses zip entries that lead out: ../x, an absolute path", async () => {
    const zip = await zipOf([{ name: "zz/x", data: "x" }]);
    await refused(
      renameInZip(zip, "zz/x", "../x"),
      /^refusing archive: entry "\.\.\/x" points outside the upgrade folder$/,
    );
    const abs = await zipOf([{ name: "zetc/x", data: "x" }]);
    await refused(renameInZip(abs, "zetc/x", "/etc/x"), /entry "\/etc\/x" points outside the upgrade folder/);
  });

  it("refuses zip symbolic links, devices and FIFOs, told by the external attributes", async () => {
    await refused(
      await zipOf([{ name: "bin/fake", data: "/etc/passwd", mode: 0o120777 }]),
      /entry "bin\/fake" is a symbolic link: visor unpacks only files and folders/,
    );
    await refused(await zipOf([{ name: "dev", mode: 0o020644 }]), /entry "dev" is a character device/);
    await refused(await zipOf([{ name: "fifo", mode: 0o010644 }]), /entry "fifo" is a FIFO/);
  });

  it("refuses a zip entry past the limit, entries past it in all, and a bomb lying about its size", async () => {
    const limits = { maxBytes: 1024 };
    await refused(
      await zipOf([{ name: "bin/fake", data: Buffer.alloc(2048) }]),
      /entry "bin\/fake" is larger than 1024 bytes/,
      limits,
    );
    await refused(
      await zipOf([
        { name: "a", data: Buffer.alloc(800) },
        { name: "b", data: Buffer.alloc(800) },
      ]),
      /its entries hold 1600 bytes, more than 1024/,
      limits,
    );
    // 64 MiB of zeros that both headers say are 10 bytes: stopped as it streams, at the 11th byte.
    const liar = await zipOf([{ name: "bin/fake", data: Buffer.alloc(64 * 1024 ** 2) }]);
    const lying = patchU32(patchU32(liar, 0x02014b50, 24, 10), 0x04034b50, 22, 10);
    await refused(lying, /^damaged zip archive: too many bytes in the stream/);
  });

  it("refuses a damaged zip (a flipped byte, a cut) before writing anything", async () => {
    const zip = await zipOf([
      { name: "README", data: "notes\n", store: true },
      { name: "bin/fake", data: BINARY, store: true },
    ]);
    const flipped = Buffer.from(zip);
    flipped[flipped.indexOf("echo v2")] ^= 0x20;
    await refused(flipped, /^damaged zip archive: entry "bin\/fake" fails its CRC-32$/);
    await refused(zip.subarray(0, zip.length - 30), /^damaged zip archive: /);
  });

  it("stops a gzip bomb (20 GiB from 20 MB) while it streams, at the limit", async () => {
    const member = gzipSync(Buffer.alloc(16 * 1024 ** 2));
    const bomb = Buffer.concat(Array.from({ length: 1280 }, () => member));
    await refused(bomb, /^refusing archive: its gzip stream unpacks to more than 8388608 bytes/, {
      maxBytes: 8 * 1024 ** 2,
    });
  });

  it.each(codecs)(
    "stops a %s bomb at the limit, and refuses a tar inside that leads out or links",
    async (codec) => {
      await refused(compress(Buffer.alloc(16 * 1024 ** 2), codec), /unpacks to more than 1048576 bytes/, {
        maxBytes: 1024 ** 2,
      });
      await refused(compress(tarOf([{ path: "../x", data: "x" }]), codec), /entry "\.\.\/x" points outside/);
      await refused(
        compress(tarOf([{ path: "bin/fake", type: "SymbolicLink", linkpath: "/etc/passwd" }]), codec),
        /entry "bin\/fake" is a symbolic link/,
      );
      await refused(
        compress(tarOf([{ path: "dev", type: "CharacterDevice" }]), codec),
        /entry "dev" is a CharacterDevice/,
      );
    },
  );

  // In a child process of its own, so its peak memory is the unpack's alone: a decoder that ran ahead of the
  // budget would hold most of the gibibyte (bzip2 and zstd once did, decoding a whole input chunk at once).
  it.each(codecs)(
    "stops a %s bomb of 1 GiB of zeros with at most the limit and one bounded decoder step in memory",
    (codec) => {
      const piece = compress(Buffer.alloc(16 * 1024 ** 2), codec);
      const dir = join(root, `bomb-${codec}`);
      mkdirSync(dir);
      writeFileSync(join(dir, "download"), Buffer.concat(Array.from({ length: 64 }, () => piece)));
      const install = new URL("../../supervisor/dist/artifacts/artifact-install.js", import.meta.url).href;
      const script = `
        import { installArtifact } from ${JSON.stringify(install)};
        const before = process.resourceUsage().maxRSS;
        let error = null;
        try { await installArtifact(process.argv[1], process.argv[2], "fake", { maxBytes: 8 * 1024 ** 2 }); }
        catch (e) { error = e.message; }
        console.log(JSON.stringify({ error, grew: (process.resourceUsage().maxRSS - before) * 1024 }));`;
      const out = execFileSync(
        process.execPath,
        ["--input-type=module", "-e", script, join(dir, "download"), dir],
        { encoding: "utf8" },
      );
      const { error, grew } = JSON.parse(out) as { error: string; grew: number };
      expect(error).toMatch(
        new RegExp(`^refusing archive: its ${codec} stream unpacks to more than 8388608 bytes`),
      );
      expect(grew).toBeLessThan(8 * 1024 ** 2 + 64 * 1024 ** 2);
      expect(readdirSync(dir)).toEqual(["bin"]);
    },
  );

  it.each(codecs)("refuses a %s stream cut short, before anything is unpacked", async (codec) => {
    const whole = compress(releaseTar(), codec);
    await refused(
      whole.subarray(0, Math.floor(whole.length / 2)),
      new RegExp(`^cannot unpack download: its ${codec} stream is damaged or cut short`),
    );
  });

  it.each(codecs.filter((c) => c !== "zstd"))("refuses a %s stream with a flipped byte", async (codec) => {
    const data = Buffer.from(Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 251));
    const whole = compress(data, codec);
    const flipped = Buffer.from(whole);
    flipped[Math.floor(flipped.length / 2)] ^= 0xff;
    await refused(flipped, new RegExp(`its ${codec} stream is damaged or cut short`));
  });

  it("refuses a compressed stream holding a zip or another compressed stream", async () => {
    await refused(gzipSync(await zipOf([{ name: "fake", data: BINARY }])), /its gzip stream holds a zip/);
    await refused(gzipSync(gzipSync(BINARY)), /its gzip stream holds a gzip stream/);
  });
});
