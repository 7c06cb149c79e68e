import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zipOf } from "../../supervisor/release-archives.js";
import { chaind } from "../helpers/chaind-process.js";

// `tx upgrade software-upgrade` checks --upgrade-info before it builds anything, as Cosmos' CLI does. The txs
// are only generated (--generate-only): what is checked here happens before any node is asked.
describe("software-upgrade --upgrade-info checks", () => {
  let dir: string;
  let home: string;
  let server: ReleaseServer;
  const sum = (name: string) =>
    `sha256:${createHash("sha256")
      .update(readFileSync(join(dir, "files", name)))
      .digest("hex")}`;
  const propose = (...extra: string[]) =>
    chaind([
      ...["tx", "upgrade", "software-upgrade", "v2", "--title", "t", "--summary", "s", "--from", "validator"],
      ...["--upgrade-height", "1000", "--generate-only", "--home", home, "--node", "tcp://127.0.0.1:1"],
      ...extra,
    ]);
  const planInfoOf = (stdout: string) => JSON.parse(stdout).body.messages[0].messages[0].plan.info;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "upgrade-info-"));
    home = join(dir, "home");
    const made = await chaind(["testnet", "--home", home, "--chain-id", "info-1"]);
    expect(made.exitCode, made.stderr).toBe(0);
    const files = join(dir, "files");
    mkdirSync(join(dir, "release", "bin"), { recursive: true });
    writeFileSync(join(dir, "release", "bin", "chaind"), "#!/bin/sh\necho v2\n");
    chmodSync(join(dir, "release", "bin", "chaind"), 0o755);
    mkdirSync(files);
    await execa("tar", ["-czf", join(files, "chaind-v2.tar.gz"), "-C", join(dir, "release"), "bin"]);
    writeFileSync(
      join(files, "chaind-v2.zip"),
      await zipOf([{ name: "bin/chaind", data: "#!/bin/sh\necho v2\n", mode: 0o100755 }]),
    );
    writeFileSync(join(files, "chaind"), "#!/bin/sh\necho v2\n");
    server = await ReleaseServer.start({ dir: files });
    writeFileSync(
      join(files, "plan.json"),
      JSON.stringify({
        binaries: {
          "linux/amd64": `${server.fileUrl("chaind-v2.tar.gz")}?checksum=${sum("chaind-v2.tar.gz")}`,
          "darwin/arm64": `${server.fileUrl("chaind-v2.zip")}?checksum=${sum("chaind-v2.zip")}`,
          any: `${server.fileUrl("chaind")}?checksum=${sum("chaind")}`,
        },
      }),
    );
  });
  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses a blank or missing --upgrade-info with Cosmos' words, unless --no-validate", async () => {
    for (const info of [["--upgrade-info", ""], ["--upgrade-info", "  "], []]) {
      const r = await propose(...info);
      expect(r.exitCode).toBe(1);
      expect(r.stderr.trim()).toBe("Error: --upgrade-info: plan info must not be blank");
    }
    const unchecked = await propose("--upgrade-info", "", "--no-validate");
    expect(unchecked.exitCode, unchecked.stderr).toBe(0);
    expect(planInfoOf(unchecked.stdout)).toBe("");
  });

  it("takes the URL of a plan-info document, as visor reads it, and fetches nothing without --daemon-name", async () => {
    const doc = `${server.fileUrl("plan.json")}?checksum=${sum("plan.json")}`;
    const r = await propose("--upgrade-info", doc);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(planInfoOf(r.stdout)).toBe(doc);
    expect(server.log).toEqual([]);
  });

  it("with --daemon-name, fetches the document and every binary, checking checksums and that each is the daemon", async () => {
    const doc = `${server.fileUrl("plan.json")}?checksum=${sum("plan.json")}`;
    const r = await propose("--upgrade-info", doc, "--daemon-name", "chaind");
    expect(r.exitCode, r.stderr).toBe(0);
    expect([...server.requests.keys()].sort()).toEqual([
      "chaind",
      "chaind-v2.tar.gz",
      "chaind-v2.zip",
      "plan.json",
    ]);

    const other = await propose("--upgrade-info", doc, "--daemon-name", "otherd");
    expect(other.exitCode).toBe(1);
    expect(other.stderr.trim()).toMatch(
      /^Error: --upgrade-info: error downloading binary for os\/arch (linux\/amd64|darwin\/arm64): the archive holds neither bin\/otherd nor otherd$/,
    );

    const tampered = JSON.stringify({
      binaries: { "linux/amd64": `${server.fileUrl("chaind-v2.tar.gz")}?checksum=sha256:${"0".repeat(64)}` },
    });
    const bad = await propose("--upgrade-info", tampered, "--daemon-name", "chaind");
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.trim()).toMatch(
      /^Error: --upgrade-info: error downloading binary for os\/arch linux\/amd64: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/chaind-v2\.tar\.gz: expected sha256:0{64}, got [0-9a-f]{64}$/,
    );

    // A checksum file (`?checksum=file:`) is read and its digest checked, not taken as "no checksum".
    writeFileSync(join(dir, "files", "SHA256SUMS"), `${"0".repeat(64)}  chaind-v2.tar.gz\n`);
    const listed = JSON.stringify({
      binaries: {
        "linux/amd64": `${server.fileUrl("chaind-v2.tar.gz")}?checksum=file:${server.fileUrl("SHA256SUMS")}`,
      },
    });
    const badListed = await propose("--upgrade-info", listed, "--daemon-name", "chaind");
    expect(badListed.exitCode).toBe(1);
    expect(badListed.stderr.trim()).toMatch(
      /^Error: --upgrade-info: error downloading binary for os\/arch linux\/amd64: checksum mismatch for http:\/\/127\.0\.0\.1:\d+\/chaind-v2\.tar\.gz: expected sha256:0{64}, got [0-9a-f]{64}$/,
    );
    writeFileSync(
      join(dir, "files", "SHA256SUMS"),
      `${sum("chaind-v2.tar.gz").slice(7)}  chaind-v2.tar.gz\n`,
    );
    const goodListed = await propose("--upgrade-info", listed, "--daemon-name", "chaind");
    expect(goodListed.exitCode, goodListed.stderr).toBe(0);

    // file: URLs: never a device (it has no end), never from a document fetched from elsewhere.
    const device = JSON.stringify({
      binaries: { "linux/amd64": `file:///dev/zero?checksum=sha256:${"0".repeat(64)}` },
    });
    const zero = await propose("--upgrade-info", device, "--daemon-name", "chaind");
    expect(zero.stderr.trim()).toBe(
      "Error: --upgrade-info: error downloading binary for os/arch linux/amd64: file:///dev/zero is not a regular file",
    );
    writeFileSync(
      join(dir, "files", "local.json"),
      JSON.stringify({
        binaries: {
          "linux/amd64": `file://${join(dir, "files", "chaind")}?${sum("chaind").replace("sha256:", "checksum=sha256:")}`,
        },
      }),
    );
    const local = await propose(
      "--upgrade-info",
      `${server.fileUrl("local.json")}?checksum=${sum("local.json")}`,
      "--daemon-name",
      "chaind",
    );
    expect(local.exitCode).toBe(1);
    expect(local.stderr.trim()).toMatch(
      /binary for linux\/amd64 is a file: URL, which only inline plan info may name$/,
    );

    const badName = await propose("--upgrade-info", doc, "--daemon-name", "../chaind");
    expect(badName.stderr.trim()).toBe(
      'Error: --upgrade-info: invalid daemon name "../chaind": a file name, e.g. chaind',
    );
  });

  it("--no-validate skips every check, the downloads too", async () => {
    const before = server.log.length;
    const r = await propose("--upgrade-info", "not a plan", "--daemon-name", "chaind", "--no-validate");
    expect(r.exitCode, r.stderr).toBe(0);
    expect(planInfoOf(r.stdout)).toBe("not a plan");
    expect(server.log.length).toBe(before);
  });
});
