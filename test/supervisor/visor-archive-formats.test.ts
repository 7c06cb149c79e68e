import { createHash } from "node:crypto";
import { goPlatform } from "@chaind/core/go-platform";
import { describe, expect, it } from "vitest";
import { type ArchiveUpgrade, type Served, upgradeForeignDaemon } from "./archive-upgrade.js";
import {
  type Codec,
  compress,
  infoZipOf,
  missingCompressors,
  missingZipWriters,
  pythonZipOf,
  tarOf,
  zipOf,
} from "./release-archives.js";

const missing = missingCompressors();
if (missing.length) console.warn(`skipping bzip2/xz/zstd releases: ${missing.join(", ")} not installed`);
const noZipWriters = missingZipWriters();
if (noZipWriters.length)
  console.warn(`skipping foreign zip releases: ${noZipWriters.join(", ")} not installed`);
const needs = (codec: Codec) => codec !== "gzip" && missing.length > 0;

const hex = (algorithm: string, bytes: Buffer) => createHash(algorithm).update(bytes).digest("hex");
const inline = (url: string, key = "any") => JSON.stringify({ binaries: { [key]: url } });

/** A release's tar: bin/fake and its notes. */
const tarRelease = (binary: Buffer) =>
  tarOf([
    { path: "bin/", type: "Directory" },
    { path: "bin/fake", data: binary, mode: 0o755 },
    { path: "CHANGELOG.md", data: "v2\n" },
  ]);

/** Plan info as a URL to a JSON document (with its own sha256) that names the artifact under `key`. */
function planDocument(s: Served, artifactUrl: string, key: string): string {
  const doc = JSON.stringify({ binaries: { [key]: artifactUrl } });
  return `${s.put("plan.json", doc)}?checksum=sha256:${hex("sha256", Buffer.from(doc))}`;
}

/** `?checksum=file:<url>` over a checksum file written as `lines` makes it. */
function checksumFile(s: Served, lines: string): string {
  return `file:${s.put("SHA256SUMS", lines)}`;
}

const upgraded = { code: 0, current: "upgrades/v2" };

describe("visor upgrades a foreign daemon from every release format cosmovisor takes", () => {
  const cases: [string, boolean, ArchiveUpgrade][] = [
    [
      "a zip with sha512, inline plan info under any",
      false,
      {
        fileName: "fake-v2.zip",
        release: (b) =>
          zipOf([
            { name: "bin/", mode: 0o40755 },
            { name: "bin/fake", data: b, mode: 0o100755 },
          ]),
        planInfo: (s, a) => inline(`${s.url("fake-v2.zip")}?checksum=sha512:${hex("sha512", a)}`),
      },
    ],
    [
      "a zip from Python's zipfile, entries with external_attr = 0o755 << 16 (no file-type bits)",
      noZipWriters.includes("python3"),
      {
        fileName: "fake-v2.zip",
        release: (b) =>
          pythonZipOf([
            { name: "bin/", mode: 0o755 },
            { name: "bin/fake", data: b, mode: 0o755 },
          ]),
        planInfo: (s, a) => inline(`${s.url("fake-v2.zip")}?checksum=sha256:${hex("sha256", a)}`),
      },
    ],
    [
      "a zip from Info-ZIP's zip -r",
      noZipWriters.includes("zip"),
      {
        fileName: "fake-v2.zip",
        release: (b) => infoZipOf([{ path: "bin/fake", data: b, mode: 0o755 }]),
        planInfo: (s, a) => inline(`${s.url("fake-v2.zip")}?checksum=sha256:${hex("sha256", a)}`),
      },
    ],
    [
      "a tar.xz with a checksum file, plan info a URL to a JSON document with any",
      needs("xz"),
      {
        fileName: "fake-v2-linux.tar.xz",
        release: (b) => compress(tarRelease(b), "xz"),
        planInfo: (s, a) => {
          const sums = checksumFile(
            s,
            `${"0".repeat(64)}  other.tar.xz\n${hex("sha256", a)}  fake-v2-linux.tar.xz\n`,
          );
          return planDocument(s, `${s.url("fake-v2-linux.tar.xz")}?checksum=${sums}`, "any");
        },
      },
    ],
    [
      "a tar.zst with sha512, plan info a document naming this platform",
      needs("zstd"),
      {
        fileName: "fake-v2.tar.zst",
        release: (b) => compress(tarRelease(b), "zstd"),
        planInfo: (s, a) =>
          planDocument(s, `${s.url("fake-v2.tar.zst")}?checksum=sha512:${hex("sha512", a)}`, goPlatform()),
      },
    ],
    [
      "a tar.bz2 with a BSD-style sha512 checksum file",
      needs("bzip2"),
      {
        fileName: "fake-v2.tar.bz2",
        release: (b) => compress(tarRelease(b), "bzip2"),
        planInfo: (s, a) =>
          inline(
            `${s.url("fake-v2.tar.bz2")}?checksum=${checksumFile(s, `SHA512 (fake-v2.tar.bz2) = ${hex("sha512", a)}\n`)}`,
          ),
      },
    ],
    [
      "a bare .gz with sha512",
      false,
      {
        fileName: "fake-v2.gz",
        release: (b) => compress(b, "gzip"),
        planInfo: (s, a) =>
          inline(`${s.url("fake-v2.gz")}?checksum=sha512:${hex("sha512", a)}`, goPlatform()),
      },
    ],
    [
      "a bare .xz with a checksum file holding one digest",
      needs("xz"),
      {
        fileName: "fake-v2.xz",
        release: (b) => compress(b, "xz"),
        planInfo: (s, a) =>
          inline(`${s.url("fake-v2.xz")}?checksum=${checksumFile(s, `${hex("sha512", a)}\n`)}`),
      },
    ],
    [
      "a bare .zst with sha512",
      needs("zstd"),
      {
        fileName: "fake-v2.zst",
        release: (b) => compress(b, "zstd"),
        planInfo: (s, a) => inline(`${s.url("fake-v2.zst")}?checksum=sha512:${hex("sha512", a)}`),
      },
    ],
    [
      "a plain binary with sha512",
      false,
      {
        fileName: "fake-v2",
        release: (b) => b,
        planInfo: (s, a) => inline(`${s.url("fake-v2")}?checksum=sha512:${hex("sha512", a)}`),
      },
    ],
  ];

  for (const [name, skip, scenario] of cases)
    it.skipIf(skip)(`installs and runs ${name}`, async () => {
      const r = await upgradeForeignDaemon(scenario);
      expect(r, r.output).toMatchObject(upgraded);
      // The new binary ran its pre-upgrade, then started: it came out of the archive whole and executable.
      expect(
        r.ran
          .trim()
          .split("\n")
          .map((l) => l.split(" ")[0]),
      ).toEqual(["pre-upgrade", "start"]);
    });

  const zip: Pick<ArchiveUpgrade, "fileName" | "release"> = {
    fileName: "fake-v2.zip",
    release: (b) => zipOf([{ name: "bin/fake", data: b, mode: 0o100755 }]),
  };
  const never = (r: { code: number; current: string; ran: string }) => {
    expect(r.code).toBe(1);
    expect(r.current).toBe("genesis");
    expect(r.ran).toBe("");
  };

  it("never runs a binary whose sha512, or whose checksum file's digest, is wrong", async () => {
    const wrong = await upgradeForeignDaemon({
      ...zip,
      planInfo: (s) => inline(`${s.url("fake-v2.zip")}?checksum=sha512:${"0".repeat(128)}`),
    });
    never(wrong);
    expect(wrong.output).toMatch(
      /checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/fake-v2\.zip: expected sha512:0{128}/,
    );
    const wrongFile = await upgradeForeignDaemon({
      ...zip,
      planInfo: (s) =>
        inline(`${s.url("fake-v2.zip")}?checksum=${checksumFile(s, `${"1".repeat(64)}  fake-v2.zip\n`)}`),
    });
    never(wrongFile);
    expect(wrongFile.output).toMatch(/checksum mismatch for \S+fake-v2\.zip: expected sha256:1{64}/);
  });

  it("never runs a binary vouched for by a weak checksum, in the URL or in a checksum file", async () => {
    const weakUrl = await upgradeForeignDaemon({
      ...zip,
      planInfo: (s, a) => inline(`${s.url("fake-v2.zip")}?checksum=sha1:${hex("sha1", a)}`),
    });
    never(weakUrl);
    expect(weakUrl.output).toMatch(
      /weak checksum sha1 in \S+: use sha256, sha384 or sha512, or set VISOR_ALLOW_WEAK_CHECKSUMS=true/,
    );
    const weakFile = await upgradeForeignDaemon({
      ...zip,
      planInfo: (s, a) =>
        inline(`${s.url("fake-v2.zip")}?checksum=${checksumFile(s, `${hex("md5", a)}  fake-v2.zip\n`)}`),
    });
    never(weakFile);
    expect(weakFile.output).toMatch(
      /weak checksum md5 in the checksum file http:\/\/127\.0\.0\.1:\d+\/SHA256SUMS: use sha256, sha384 or sha512, or set VISOR_ALLOW_WEAK_CHECKSUMS=true/,
    );
  });

  it("names the checksum file that lists no digest for the artifact, and runs nothing", async () => {
    const r = await upgradeForeignDaemon({
      ...zip,
      planInfo: (s) =>
        inline(`${s.url("fake-v2.zip")}?checksum=${checksumFile(s, `${"1".repeat(64)}  other.zip\n`)}`),
    });
    never(r);
    expect(r.output).toMatch(
      /the checksum file http:\/\/127\.0\.0\.1:\d+\/SHA256SUMS lists no checksum for "fake-v2\.zip"/,
    );
  });
});
