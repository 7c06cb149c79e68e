#!/usr/bin/env node
// Builds a self-contained release of a chain binary:
//   node scripts/release.js --app <dir with main.ts | entry file> --version <v> [--out <dir>] [--name chaind]
//     [--base-url <url the archive will be served from>] [--sign-key <ed25519 private key file> --plan <name>]
// Writes <out>/chaind-<v>-<os>-<arch>.tar.gz, <out>/SHA256SUMS and <out>/plan-info-<v>.json; with --sign-key,
// also <archive>.sig: the signature visor checks under VISOR_TRUSTED_KEYS, for that plan name and this platform
// (format: docs/OPERATIONS.md, "Signed artifacts"). Signing uses visor's own message code from dist/ (npm run
// build first). Without --base-url the plan info names a file: URL, which visor fetches only with
// VISOR_ALLOW_FILE_URLS=true.
//
// bin/<name> is one file holding everything but Node itself: an esbuild bundle of the app and its
// dependencies with LevelDB's native binding embedded (written to a cache file and loaded on first use), so a
// supervisor may copy the file alone (cosmovisor's `init`, single-file downloads). Next to it,
// bin/swagger-ui/ holds the Swagger UI assets the REST server serves when api.swagger is on.

import { createHash, createPrivateKey, createPublicKey, sign } from "node:crypto";
import {
  chmodSync,
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
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { build } from "esbuild";
import { create as createTar } from "tar";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);

/** Go's names for Node's platform and arch, as plan-info keys them (linux/amd64, darwin/arm64, …). */
export function goPlatform(platform = process.platform, arch = process.arch) {
  const os = { win32: "windows" }[platform] ?? platform;
  const goArch = { x64: "amd64", ia32: "386" }[arch] ?? arch;
  return `${os}/${goArch}`;
}

// The bundle is CommonJS (an extensionless file outside any package runs as CommonJS); code that reads
// import.meta.url gets the bundle's own URL.
const CJS_BANNER = [
  "#!/usr/bin/env node",
  'const __releaseImportMetaUrl = require("node:url").pathToFileURL(__filename).href;',
].join("\n");

/** classic-level's binding loader, replaced by one that loads the embedded binary from a content-named file. */
function embeddedBindingPlugin(nodeFile) {
  const bytes = readFileSync(nodeFile);
  const digest = createHash("sha256").update(bytes).digest("hex").slice(0, 16);
  return {
    name: "embedded-leveldb-binding",
    setup(b) {
      b.onLoad({ filter: /classic-level[\\/]binding\.js$/ }, () => ({
        loader: "js",
        contents: `
const { existsSync, mkdirSync, renameSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
const { tmpdir } = require("node:os");
const dir = join(process.env.XDG_CACHE_HOME || tmpdir(), "chaind-native");
const file = join(dir, "classic-level-${digest}.node");
if (!existsSync(file)) {
  mkdirSync(dir, { recursive: true });
  const tmp = file + "." + process.pid;
  writeFileSync(tmp, Buffer.from(${JSON.stringify(bytes.toString("base64"))}, "base64"), { mode: 0o755 });
  renameSync(tmp, file);
}
const m = { exports: {} };
process.dlopen(m, file);
module.exports = m.exports;
`,
      }));
    },
  };
}

/** This platform's prebuilt LevelDB binding from classic-level (glibc or musl on Linux). */
function nativeBinding() {
  const prebuilds = join(dirname(require.resolve("classic-level/package.json")), "prebuilds");
  const dirs = [`${process.platform}-${process.arch}`, `${process.platform}-x64+arm64`];
  const dir = dirs.map((d) => join(prebuilds, d)).find((d) => existsSync(d));
  if (!dir) throw new Error(`classic-level has no prebuilt binding for ${dirs[0]}`);
  const musl = process.platform === "linux" && !process.report?.getReport()?.header?.glibcVersionRuntime;
  const files = readdirSync(dir).filter((f) => f.endsWith(".node"));
  const pick = files.find((f) => (musl ? f.includes("musl") : !f.includes("musl"))) ?? files[0];
  return join(dir, pick);
}

function entryOf(app) {
  const p = resolve(root, app);
  if (existsSync(p) && statSync(p).isDirectory()) {
    const main = join(p, "main.ts");
    if (!existsSync(main)) throw new Error(`${app} has no main.ts`);
    return main;
  }
  if (!existsSync(p)) throw new Error(`no such app entry: ${app}`);
  return p;
}

function sha256File(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** DER of a PKCS#8 ed25519 private key, up to its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * An ed25519 private key from a file: PEM (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it), or the
 * 32-byte seed in hex or base64.
 */
function signingKey(file) {
  const text = readFileSync(file, "utf8").trim();
  let key;
  if (text.startsWith("-----BEGIN")) key = createPrivateKey(text);
  else {
    const seed = /^[0-9a-fA-F]{64}$/.test(text) ? Buffer.from(text, "hex") : Buffer.from(text, "base64");
    if (seed.length !== 32) throw new Error(`${file}: not an ed25519 private key (PEM, or a 32-byte seed)`);
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: "der",
      type: "pkcs8",
    });
  }
  if (key.asymmetricKeyType !== "ed25519")
    throw new Error(`${file}: an ${key.asymmetricKeyType} key, not ed25519`);
  return key;
}

/**
 * Signs archives for one plan on this platform: `sign` writes `<archive>.sig`, base64 of the ed25519 signature
 * over visor's signed message (plan, platform, digest). Loaded before the build, so a bad key or a missing
 * dist/ fails at once. `publicKey` (hex) is what visor's VISOR_TRUSTED_KEYS takes.
 */
async function releaseSigner({ signKey, plan }) {
  if (!plan) throw new Error("--sign-key needs --plan <the upgrade's plan name>");
  const module = join(root, "dist", "supervisor", "src", "artifact-signature.js");
  if (!existsSync(module)) throw new Error(`${module} is missing: run npm run build first`);
  const { signatureMessage } = await import(pathToFileURL(module).href);
  const key = signingKey(signKey);
  const spki = createPublicKey(key).export({ format: "der", type: "spki" });
  return {
    publicKey: spki.subarray(-32).toString("hex"),
    sign(archive, sha256) {
      const message = signatureMessage({ plan, platform: goPlatform(), sha256 });
      const path = `${archive}.sig`;
      writeFileSync(path, `${sign(null, message, key).toString("base64")}\n`);
      return path;
    },
  };
}

/**
 * Builds one release; answers the archive path, its sha256 and the plan-info JSON text (whose URL carries the
 * checksum when a base URL is given), and with `signKey` the signature for `plan` (see releaseSigner).
 */
export async function buildRelease({ app, version, out, name = "chaind", baseUrl, signKey, plan }) {
  if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version))
    throw new Error(`bad --version ${JSON.stringify(version)}`);
  const entry = entryOf(app);
  const signer = signKey ? await releaseSigner({ signKey, plan }) : null;
  const outDir = resolve(out ?? join(root, "releases"));
  mkdirSync(outDir, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "chaind-release-"));
  try {
    const bin = join(stage, "bin");
    const executable = join(bin, name);
    await build({
      entryPoints: [entry],
      outfile: executable,
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      banner: { js: CJS_BANNER },
      define: {
        "import.meta.url": "__releaseImportMetaUrl",
        __RELEASE_VERSION__: JSON.stringify(version),
      },
      plugins: [embeddedBindingPlugin(nativeBinding())],
      logLevel: "error",
      legalComments: "none",
    });
    chmodSync(executable, 0o755);
    cpSync(dirname(require.resolve("swagger-ui-dist/package.json")), join(bin, "swagger-ui"), {
      recursive: true,
      filter: (src) => !src.endsWith(".map"),
    });

    const [os, arch] = goPlatform().split("/");
    const archiveName = `${name}-${version}-${os}-${arch}.tar.gz`;
    const archive = join(outDir, archiveName);
    await createTar({ gzip: true, file: archive, cwd: stage, portable: true, noMtime: true }, ["bin"]);
    const sha256 = sha256File(archive);
    const sums = join(outDir, "SHA256SUMS");
    const others = existsSync(sums)
      ? readFileSync(sums, "utf8")
          .split("\n")
          .filter((l) => l.trim() && !l.endsWith(`  ${archiveName}`))
      : [];
    writeFileSync(sums, `${[...others, `${sha256}  ${archiveName}`].join("\n")}\n`);
    const base = baseUrl ? baseUrl.replace(/\/$/, "") : pathToFileURL(outDir).href;
    const url = `${base}/${archiveName}?checksum=sha256:${sha256}`;
    const planInfo = JSON.stringify({ binaries: { [goPlatform()]: url } });
    writeFileSync(join(outDir, `plan-info-${version}.json`), `${planInfo}\n`);
    const signature = signer ? { path: signer.sign(archive, sha256), publicKey: signer.publicKey } : null;
    return { archive, sha256, planInfo, signature };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      app: { type: "string" },
      version: { type: "string" },
      out: { type: "string" },
      name: { type: "string", default: "chaind" },
      "base-url": { type: "string" },
      "sign-key": { type: "string" },
      plan: { type: "string" },
    },
  });
  if (!values.app || !values.version) {
    console.error(
      "usage: npm run release -- --app <app dir> --version <v> [--out dir] [--base-url url] [--sign-key file --plan name]",
    );
    process.exit(2);
  }
  try {
    const r = await buildRelease({
      app: values.app,
      version: values.version,
      out: values.out,
      name: values.name,
      baseUrl: values["base-url"],
      signKey: values["sign-key"],
      plan: values.plan,
    });
    console.log(`${basename(r.archive)}  sha256:${r.sha256}\nplan info: ${r.planInfo}`);
    if (r.signature)
      console.log(
        `signature: ${r.signature.path} (plan ${values.plan}, public key ${r.signature.publicKey})`,
      );
  } catch (e) {
    console.error(`release failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
