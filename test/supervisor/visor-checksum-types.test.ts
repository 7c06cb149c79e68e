import { createHash } from "node:crypto";
import { existsSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { fakeBinary, visorHome } from "./visor-home.js";

/** go-getter's checksum types under visor: sha384 as sha256 and sha512, md5 and sha1 only when allowed. */
describe("visor checksum types", () => {
  /**
   * One upgrade attempt in a fresh home, v1 halting at 3 for v2 named by `checksum` (the artifact is a file
   * outside the home, so no server is needed; the checksum rules are the same).
   */
  const attempt = async (checksum: (v2: string) => string, extra: Record<string, string> = {}) => {
    const h = visorHome();
    try {
      expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
      const v2 = fakeBinary(h.root, "v2");
      const v = h.start(["start"], {
        FAKE_HALTS: "v1:3:v2",
        FAKE_INFO: JSON.stringify({
          binaries: { any: `${pathToFileURL(v2).href}?checksum=${checksum(v2)}` },
        }),
        DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
        UNSAFE_SKIP_BACKUP: "true",
        VISOR_ALLOW_FILE_URLS: "true",
        ...extra,
      });
      const upgraded = await v.waitFor(/v2 running|^Error: /m, 20_000).then((m) => m[0] !== "Error: ");
      if (upgraded) v.proc.kill("SIGTERM");
      const code = await v.exit();
      return {
        code,
        output: v.output,
        current: readlinkSync(join(h.home, "cosmovisor", "current")),
        installed: existsSync(join(h.home, "cosmovisor", "upgrades", "v2", "bin", "fake")),
      };
    } finally {
      h.cleanup();
    }
  };
  const digest = (algorithm: string) => (file: string) =>
    `${algorithm}:${createHash(algorithm).update(readFileSync(file)).digest("hex")}`;
  const refused = { code: 1, current: "genesis", installed: false };
  const upgraded = { code: 0, current: "upgrades/v2", installed: true };

  it("verifies a sha384 checksum, and refuses a wrong one", async () => {
    const wrong = await attempt(() => `sha384:${"0".repeat(96)}`);
    expect(wrong).toMatchObject(refused);
    expect(wrong.output).toMatch(/checksum mismatch for \S+: expected sha384:0{96}, got sha384:/);
    expect(await attempt(digest("sha384"))).toMatchObject(upgraded);
  });

  it("refuses md5 and sha1 by default, naming the setting that allows them", async () => {
    for (const algorithm of ["md5", "sha1"]) {
      const weak = await attempt(digest(algorithm));
      expect(weak).toMatchObject(refused);
      expect(weak.output).toMatch(
        new RegExp(
          `weak checksum ${algorithm} in \\S+: use sha256, sha384 or sha512, or set VISOR_ALLOW_WEAK_CHECKSUMS=true`,
        ),
      );
    }
  });

  it("with VISOR_ALLOW_WEAK_CHECKSUMS still checks the digest: a wrong md5 never runs, the right one upgrades", async () => {
    const allow = { VISOR_ALLOW_WEAK_CHECKSUMS: "true" };
    const wrong = await attempt(() => `md5:${"0".repeat(32)}`, allow);
    expect(wrong).toMatchObject(refused);
    expect(wrong.output).toMatch(/checksum mismatch/);
    expect(await attempt(digest("md5"), allow)).toMatchObject(upgraded);
  });
});
