// Issue 20, point 9: with VISOR_TRUSTED_KEYS, a signature covered only the artifact's digest, so any artifact the
// key ever signed (an older release) could be swapped in for a plan. Signatures now bind plan, platform and
// digest. Real ed25519 keys, the real loopback release server, the real release script and visor's binary.
import { execFileSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { goPlatform } from "@chaind/core/go-platform";
import { ReleaseServer } from "@chaind/harness/release-server";
import { ed25519 } from "@noble/curves/ed25519.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildRelease } from "../../scripts/release.js";
import {
  SIGNATURE_FORMAT,
  signatureMessage,
  verifyArtifactSignature,
} from "../../supervisor/src/artifacts/artifact-signature.js";
import { DEFAULT_MAX_DOWNLOAD_BYTES } from "../../supervisor/src/artifacts/downloader.js";
import { fakeBinary, sha256File, visorHome } from "../supervisor/visor-home.js";

const FAKE = join(import.meta.dirname, "../../fixtures/daemons/fake-daemon.cjs");

describe("artifact signatures bind the plan, the platform and the digest", () => {
  let h: ReturnType<typeof visorHome>;
  let files: string;
  let server: ReleaseServer;
  const signer = ed25519.utils.randomSecretKey();
  const trusted = Buffer.from(ed25519.getPublicKey(signer)).toString("hex");

  beforeEach(async () => {
    h = visorHome();
    files = join(h.root, "served");
    mkdirSync(files);
    server = await ReleaseServer.start({ dir: files });
    copyFileSync(fakeBinary(h.root, "v2"), join(files, "fake-v2"));
  });
  afterEach(async () => {
    await server.close();
    h.cleanup();
  });

  const sha = () => sha256File(join(files, "fake-v2"));
  const sign = (message: Uint8Array) =>
    writeFileSync(
      join(files, "fake-v2.sig"),
      `${Buffer.from(ed25519.sign(message, signer)).toString("base64")}\n`,
    );
  const verify = (plan: string, platform: string, sha256 = sha()) =>
    verifyArtifactSignature(
      { artifact: { url: server.fileUrl("fake-v2"), checksum: null, platform }, plan, sha256 },
      {
        trustedKeys: [trusted],
        allowFileUrls: false,
        home: h.home,
        dataBackupDir: h.home,
        maxDownloadBytes: DEFAULT_MAX_DOWNLOAD_BYTES,
      },
    );
  const otherPlatform = goPlatform() === "linux/arm64" ? "linux/amd64" : "linux/arm64";

  it("the signed message is the documented v1 text", () => {
    expect(
      signatureMessage({ plan: "v2", platform: "linux/amd64", sha256: "AB".repeat(32) }).toString("utf8"),
    ).toBe(`visor-artifact-signature-v1\nplan=v2\nplatform=linux/amd64\nsha256=${"ab".repeat(32)}\n`);
    expect(() => signatureMessage({ plan: "v2\nplan=v3", platform: "any", sha256: "ab".repeat(32) })).toThrow(
      /line break/,
    );
  });

  it("verifies for the plan, platform and digest it was made for", async () => {
    sign(signatureMessage({ plan: "v2", platform: goPlatform(), sha256: sha() }));
    await expect(verify("v2", goPlatform())).resolves.toBeUndefined();
  });

  it("a signature made for plan v2 does not verify for plan v3 (an older release swapped in)", async () => {
    sign(signatureMessage({ plan: "v2", platform: "any", sha256: sha() }));
    await expect(verify("v2", "any")).resolves.toBeUndefined();
    await expect(verify("v3", "any")).rejects.toThrow(
      /no trusted key signed http:\S+fake-v2 for plan "v3" on any/,
    );
  });

  it("does not verify for another platform, nor another digest", async () => {
    sign(signatureMessage({ plan: "v2", platform: otherPlatform, sha256: sha() }));
    await expect(verify("v2", goPlatform())).rejects.toThrow(/no trusted key signed/);
    await expect(verify("v2", "any")).rejects.toThrow(/no trusted key signed/);
    sign(signatureMessage({ plan: "v2", platform: "any", sha256: "0".repeat(64) }));
    await expect(verify("v2", "any")).rejects.toThrow(/no trusted key signed/);
  });

  it("refuses the old digest-only signatures, saying the format changed", async () => {
    sign(Buffer.from(sha(), "hex"));
    await expect(verify("v2", "any")).rejects.toThrow(
      new RegExp(
        `signs the bare digest, a format visor no longer accepts: the format changed to ${SIGNATURE_FORMAT}`,
      ),
    );
  });

  it("visor refuses plan v3 whose Plan.info names the v2 artifact and its v2 signature", async () => {
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    sign(signatureMessage({ plan: "v2", platform: "any", sha256: sha() }));
    const v = h.start(["start"], {
      FAKE_HALTS: "v1:3:v3",
      FAKE_INFO: JSON.stringify({
        binaries: { any: `${server.fileUrl("fake-v2")}?checksum=sha256:${sha()}` },
      }),
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      VISOR_TRUSTED_KEYS: trusted,
    });
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(/Error: no trusted key signed http:\S+fake-v2 for plan "v3" on any/);
    expect(v.output).not.toMatch(/v2 running/);
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("genesis");
    expect(readdirSync(join(h.home, "cosmovisor", "upgrades"))).toEqual([]);
  });

  it.runIf(existsSync("/usr/bin/openssl") || existsSync("/bin/openssl"))(
    "a signature made with the shell and openssl, as docs/OPERATIONS.md shows, verifies",
    async () => {
      // The recipe of the docs, run as written (openssl 3 signs ed25519 with -rawin).
      const script = [
        "set -e",
        "openssl genpkey -algorithm ed25519 -out key.pem",
        "openssl pkey -in key.pem -pubout -outform DER | tail -c 32 | base64 > key.pub",
        `printf 'visor-artifact-signature-v1\\nplan=%s\\nplatform=%s\\nsha256=%s\\n' v2 any "$(sha256sum fake-v2 | cut -d' ' -f1)" > msg`,
        "openssl pkeyutl -sign -inkey key.pem -rawin -in msg | base64 -w0 > fake-v2.sig",
      ].join("\n");
      execFileSync("sh", ["-c", script], { cwd: files });
      const key = readFileSync(join(files, "key.pub"), "utf8").trim();
      const config = {
        trustedKeys: [key],
        allowFileUrls: false,
        home: h.home,
        dataBackupDir: h.home,
        maxDownloadBytes: 1024 ** 3,
      };
      const artifact = { url: server.fileUrl("fake-v2"), checksum: null, platform: "any" };
      await expect(
        verifyArtifactSignature({ artifact, plan: "v2", sha256: sha() }, config),
      ).resolves.toBeUndefined();
      await expect(verifyArtifactSignature({ artifact, plan: "v3", sha256: sha() }, config)).rejects.toThrow(
        /no trusted key signed/,
      );
    },
  );
});

describe("npm run release --sign-key: its signature verifies in visor end to end", () => {
  let h: ReturnType<typeof visorHome>;
  let server: ReleaseServer;

  beforeEach(async () => {
    h = visorHome();
    server = await ReleaseServer.start({ dir: join(h.root, "releases") });
  });
  afterEach(async () => {
    await server.close();
    h.cleanup();
  });

  it("a release of the fake daemon v2, signed for plan v2, upgrades under VISOR_TRUSTED_KEYS; the same for v3 does not", async () => {
    const app = join(h.root, "fake-v2-app.cjs");
    // Without its #! line: the release's bundle writes its own (esbuild would keep both).
    const source = readFileSync(FAKE, "utf8").replace(/^#!.*\n/, "");
    writeFileSync(app, source.replace('const VERSION = "v1";', 'const VERSION = "v2";'));
    const keyFile = join(h.root, "release-key.pem");
    const { privateKey } = generateKeyPairSync("ed25519");
    writeFileSync(keyFile, privateKey.export({ format: "pem", type: "pkcs8" }), { mode: 0o600 });
    const release = await buildRelease({
      app,
      version: "2.0.0",
      out: join(h.root, "releases"),
      name: "fake",
      baseUrl: server.url,
      // The fake daemon has no `testnet` and `start` to make a code cache with.
      codeCache: false,
      signKey: keyFile,
      plan: "v2",
    });
    expect(release.signature?.path).toBe(`${release.archive}.sig`);
    expect(release.signature?.publicKey).toMatch(/^[0-9a-f]{64}$/);

    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
    const env = {
      FAKE_INFO: release.planInfo,
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
      UNSAFE_SKIP_BACKUP: "true",
      VISOR_TRUSTED_KEYS: release.signature!.publicKey,
    };
    const wrongPlan = h.start(["start"], { ...env, FAKE_HALTS: "v1:3:v3" });
    expect(await wrongPlan.exit()).toBe(1);
    expect(wrongPlan.output).toMatch(
      new RegExp(`no trusted key signed \\S+ for plan "v3" on ${goPlatform()}`),
    );

    // The same height, now for plan v2 (the refused v3 stays out of the way).
    rmSync(join(h.home, "data", "upgrade-info.json"));
    const v = h.start(["start"], { ...env, FAKE_HALTS: "v1:3:v2" });
    await v.waitFor(/v2 running/, 30_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("upgrades/v2");
    expect(server.requests.get(`${release.archive.split("/").pop()}.sig`)).toBeGreaterThanOrEqual(2);
  });
});
