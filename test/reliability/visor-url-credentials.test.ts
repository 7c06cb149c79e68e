// Issue 20, point 10: credentials and query tokens in Plan.info URLs (`user:pass@`, presigned `X-Amz-Signature`)
// were written to visor's logs and status file, and never worked (fetch refuses URLs with credentials). Now they
// are sent (basic auth as a header) and never printed or stored. A real release server on loopback that demands
// basic auth and a query token, and visor's own binary; everything it prints and stores is searched.
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { silentLogger } from "@chaind/core/logger";
import { ReleaseServer } from "@chaind/harness/release-server";
import { ed25519 } from "@noble/curves/ed25519.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { signatureMessage } from "../../supervisor/src/artifacts/artifact-signature.js";
import {
  DEFAULT_DOWNLOAD,
  DEFAULT_MAX_DOWNLOAD_BYTES,
  downloadFile,
} from "../../supervisor/src/artifacts/downloader.js";
import { REDACTED, redactUrl, redactUrls } from "../../supervisor/src/errors/url-redaction.js";
import { fakeBinary, sha256File, visorHome } from "../supervisor/visor-home.js";

describe("redactUrl", () => {
  it.each([
    [
      "https://user:pa55@host/x.tar.gz?checksum=sha256:ab",
      `https://${REDACTED}@host/x.tar.gz?checksum=sha256:ab`,
    ],
    ["https://user:p@ss@host/x", `https://${REDACTED}@host/x`],
    ["https://token@host/x", `https://${REDACTED}@host/x`],
    [
      "https://b.s3.amazonaws.com/x?X-Amz-Algorithm=AWS4&X-Amz-Credential=AK%2F1&X-Amz-Security-Token=T&X-Amz-Signature=S",
      `https://b.s3.amazonaws.com/x?X-Amz-Algorithm=AWS4&X-Amz-Credential=${REDACTED}&X-Amz-Security-Token=${REDACTED}&X-Amz-Signature=${REDACTED}`,
    ],
    [
      "https://storage.googleapis.com/b/x?X-Goog-Credential=c&X-Goog-Signature=s&X-Goog-Expires=60",
      `https://storage.googleapis.com/b/x?X-Goog-Credential=${REDACTED}&X-Goog-Signature=${REDACTED}&X-Goog-Expires=60`,
    ],
    [
      "https://d.cloudfront.net/x?Policy=p&Signature=s&Key-Pair-Id=k",
      `https://d.cloudfront.net/x?Policy=${REDACTED}&Signature=${REDACTED}&Key-Pair-Id=${REDACTED}`,
    ],
    [
      "https://a.blob.core.windows.net/c/x?sv=2020&sig=s%3D",
      `https://a.blob.core.windows.net/c/x?sv=2020&sig=${REDACTED}`,
    ],
    [
      "https://h/x?token=t&access_token=a&api_key=k#id_token=j",
      `https://h/x?token=${REDACTED}&access_token=${REDACTED}&api_key=${REDACTED}#id_token=${REDACTED}`,
    ],
    ["https://h/path@v2/x?version=2", "https://h/path@v2/x?version=2"],
    ["file:///srv/releases/chaind.tar.gz", "file:///srv/releases/chaind.tar.gz"],
  ])("%s", (url, want) => {
    expect(redactUrl(url)).toBe(want);
  });

  it("finds URLs in text, also inside JSON inside JSON, and keeps the JSON valid", () => {
    const info = JSON.stringify({ binaries: { any: "http://u:secret@h/x?token=secret&b=1" } });
    const doc = JSON.stringify({ pending_plan: { info }, error: "download of https://u:secret@h/y failed" });
    const out = redactUrls(doc);
    expect(out).not.toContain("secret");
    const parsed = JSON.parse(out);
    expect(JSON.parse(parsed.pending_plan.info).binaries.any).toBe(
      `http://${REDACTED}@h/x?token=${REDACTED}&b=1`,
    );
  });
});

const USER = "visor";
const PASSWORD = "PW-S3CRET-4417";
const TOKEN = "SIG-S3CRET-9921";

describe("artifacts behind basic auth and presigned URLs", () => {
  let h: ReturnType<typeof visorHome>;
  let files: string;
  let server: ReleaseServer;
  const signer = ed25519.utils.randomSecretKey();

  beforeEach(async () => {
    h = visorHome();
    files = join(h.root, "served");
    mkdirSync(files);
    server = await ReleaseServer.start({
      dir: files,
      auth: { basic: { user: USER, password: PASSWORD }, query: { param: "X-Amz-Signature", value: TOKEN } },
    });
    copyFileSync(fakeBinary(h.root, "v2"), join(files, "fake-v2"));
    const sha256 = sha256File(join(files, "fake-v2"));
    const sig = ed25519.sign(signatureMessage({ plan: "v2", platform: "any", sha256 }), signer);
    writeFileSync(join(files, "fake-v2.sig"), Buffer.from(sig).toString("base64"));
    expect((await h.visor(["init", fakeBinary(h.root, "v1")])).exitCode).toBe(0);
  });
  afterEach(async () => {
    await server.close();
    h.cleanup();
  });

  /** `http://visor:<password>@127.0.0.1:<port>/<name>?X-Amz-Signature=<token>&...` */
  const secretUrl = (name: string, query = "") =>
    `${server.url.replace("http://", `http://${USER}:${PASSWORD}@`)}/${name}?X-Amz-Signature=${TOKEN}${query}`;

  /** A plan-info document behind the same credentials, naming the artifact with them. */
  const planInfo = (checksum: string) => {
    const doc = JSON.stringify({ binaries: { any: secretUrl("fake-v2", `&checksum=sha256:${checksum}`) } });
    writeFileSync(join(files, "plan-v2.json"), doc);
    return secretUrl("plan-v2.json");
  };
  const env = (info: string) => ({
    FAKE_HALTS: "v1:3:v2",
    FAKE_INFO: info,
    DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    UNSAFE_SKIP_BACKUP: "true",
    VISOR_TRUSTED_KEYS: Buffer.from(ed25519.getPublicKey(signer)).toString("hex"),
  });

  /** All visor printed in a run, what `visor status` and `visor config` print, and the status file. */
  const everything = async (runOutput: string) =>
    [
      runOutput,
      (await h.visor(["status"])).all,
      (await h.visor(["config"])).all,
      readFileSync(join(h.home, "cosmovisor", "visor-status.json"), "utf8"),
    ].join("\n");

  it("fetches the plan-info document, the artifact and its signature with the credentials, and never shows them", async () => {
    const v = h.start(["start"], env(planInfo(sha256File(join(files, "fake-v2")))));
    await v.waitFor(/v2 running/, 30_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    // Every request carried both: the header (built from the URL's user info) and the token.
    const names = server.log.map((r) => r.name);
    expect(names).toEqual(["plan-v2.json", "fake-v2", "fake-v2.sig"]);
    const basic = `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString("base64")}`;
    for (const r of server.log) {
      expect(r.authorization).toBe(basic);
      expect(r.query).toContain(`X-Amz-Signature=${TOKEN}`);
    }
    const all = await everything(v.output);
    // The URLs were printed, with the secrets replaced.
    expect(v.output).toMatch(
      /fetching plan info document .*url=http:\/\/REDACTED@127\.0\.0\.1:\d+\/plan-v2\.json\?X-Amz-Signature=REDACTED/,
    );
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(TOKEN);
  });

  it("what reaches disk is 0600: the marker holding Plan.info and the record, whose URL digests leave the password out", async () => {
    const info = planInfo(sha256File(join(files, "fake-v2")));
    const v = h.start(["start"], env(info));
    await v.waitFor(/v2 running/, 30_000);
    v.proc.kill("SIGTERM");
    expect(await v.exit()).toBe(0);
    const dir = join(h.home, "cosmovisor", "upgrades", "v2");
    // The marker is the plan as the node wrote it, credentials included (cosmovisor leaves it 0644).
    expect(readFileSync(join(dir, "upgrade-info.json"), "utf8")).toContain(PASSWORD);
    expect(statSync(join(dir, "upgrade-info.json")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, ".visor-source.json")).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(join(dir, ".visor-source.json"), "utf8"));
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    const artifact = parseChecksummedUrl(
      JSON.parse(readFileSync(join(files, "plan-v2.json"), "utf8")).binaries.any,
      false,
    );
    const document = parseChecksummedUrl(info, false);
    // A digest of a URL with the password in it could be brute-forced offline; these are of the URLs without it.
    expect(record.artifact.url_sha256).not.toBe(sha(artifact.url));
    expect(record.artifact.url_sha256).toBe(sha(artifact.url.replace(`${USER}:${PASSWORD}@`, "")));
    expect(record.document.url_sha256).toBe(sha(document.url.replace(`${USER}:${PASSWORD}@`, "")));
    expect(JSON.stringify(record)).not.toContain(PASSWORD);
  });

  it("a failed upgrade names the URL in its error, the log and visor-status.json without the secrets", async () => {
    const v = h.start(["start"], env(planInfo("0".repeat(64))));
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(
      /Error: checksum mismatch for http:\/\/REDACTED@127\.0\.0\.1:\d+\/fake-v2\?X-Amz-Signature=REDACTED/,
    );
    const status = JSON.parse(readFileSync(join(h.home, "cosmovisor", "visor-status.json"), "utf8"));
    expect(status.last_upgrade.error).toMatch(/checksum mismatch for http:\/\/REDACTED@/);
    expect(status.pending_plan.info).toMatch(/http:\/\/REDACTED@.*X-Amz-Signature=REDACTED/);
    const all = await everything(v.output);
    expect(all).not.toContain(PASSWORD);
    expect(all).not.toContain(TOKEN);
  });

  it("a wrong password is a clear HTTP 401, not retried, and not shown either", async () => {
    const wrong = secretUrl("fake-v2").replace(PASSWORD, "WRONG-S3CRET");
    const v = h.start(["start"], env(JSON.stringify({ binaries: { any: wrong } })));
    expect(await v.exit()).toBe(1);
    expect(v.output).toMatch(
      /Error: download of http:\/\/REDACTED@127\.0\.0\.1:\d+\/fake-v2\?X-Amz-Signature=REDACTED failed: HTTP 401/,
    );
    expect(server.requests.get("fake-v2")).toBe(1);
    expect(await everything(v.output)).not.toMatch(/S3CRET/);
  });

  it("does not carry the Authorization header along a redirect to another origin", async () => {
    const elsewhere = await ReleaseServer.start({ dir: files });
    try {
      server.redirect("fake-v2", elsewhere.fileUrl("fake-v2"));
      const dest = join(h.root, "download");
      const got = await downloadFile(
        parseChecksummedUrl(secretUrl("fake-v2"), false),
        dest,
        {
          ...DEFAULT_DOWNLOAD,
          policy: {
            allowFileUrls: false,
            home: h.home,
            dataBackupDir: h.home,
            maxDownloadBytes: DEFAULT_MAX_DOWNLOAD_BYTES,
          },
        },
        { logger: silentLogger },
      );
      expect(got.sha256).toBe(sha256File(join(files, "fake-v2")));
      expect(server.log.map((r) => [r.name, r.authorization !== null])).toEqual([["fake-v2", true]]);
      expect(elsewhere.log.map((r) => [r.name, r.authorization])).toEqual([["fake-v2", null]]);
    } finally {
      await elsewhere.close();
    }
  });
});
