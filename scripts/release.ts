#!/usr/bin/env node
// Builds self-contained releases:
//   npm run release -- --app <dir with main.ts | entry file> --version <v> [--out <dir>] [--name chaind]
//     [--base-url <url the archive will be served from>] [--sign-key <ed25519 private key file> --plan <name>]
//   npm run release -- --visor [--out <dir>]
// A chain binary: <out>/chaind-<v>-<os>-<arch>.tar.gz, <out>/SHA256SUMS and <out>/plan-info-<v>.json; with
// --sign-key, also <archive>.sig: the signature visor checks under VISOR_TRUSTED_KEYS, for that plan name and
// this platform (format: docs/OPERATIONS.md, "Signed artifacts"). Without --base-url the plan info names a
// file: URL, which visor fetches only with VISOR_ALLOW_FILE_URLS=true.
// visor itself (--visor): <out>/visor-<version>-<os>-<arch>.tar.gz and <out>/SHA256SUMS, the version being
// supervisor/package.json's.
//
// bin/<name> is one file holding everything but Node itself: an esbuild bundle of the program and its
// dependencies, made from the workspaces' TypeScript sources (never their dist/, which may be stale), with
// the native bindings of LevelDB and libsecp256k1 embedded (written to a cache file and loaded on first use), so a supervisor may
// copy the file alone (cosmovisor's `init`, single-file downloads). Beside a chain binary, bin/swagger-ui/
// holds the Swagger UI assets the REST server serves when api.swagger is on, and bin/<name>.code-cache the V8
// code cache of a node's start-up, made by a training run of the binary at release time (shipped-code-cache.ts),
// which its first run on a machine uses when that machine has the same Node.

import { createHash, createPrivateKey, createPublicKey, type KeyObject, sign } from "node:crypto";
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
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { goPlatform } from "@chaind/core/go-platform";
import { validatePlanInfo } from "@chaind/core/plan-info";
import { type BuildOptions, build, type Plugin } from "esbuild";
import { create as createTar } from "tar";
import { signatureMessage } from "visor/artifact-signature";
import { repoRoot } from "./repo-root.js";
import { CODE_CACHE_KIND, SHIPPED_CODE_CACHE_SUFFIX, writeShippedCodeCache } from "./shipped-code-cache.js";

const root = repoRoot();
const require = createRequire(import.meta.url);

/** The folder of a package as `from` (a package folder, default the scripts') resolves it. */
const packageDir = (name: string, from?: string) =>
  dirname((from ? createRequire(join(from, "package.json")) : require).resolve(`${name}/package.json`));

// The bundle is CommonJS (an extensionless file outside any package runs as CommonJS); code that reads
// import.meta.url gets the bundle's own URL.
const CJS_BANNER = 'const __releaseImportMetaUrl = require("node:url").pathToFileURL(__filename).href;';

/**
 * Source that defines `privateCacheDir(what)`: the folder where a release keeps what it derives from itself
 * (native libraries, compiled code), `{ dir, lasting }`. No one else may write to it, or rename it: another user
 * could otherwise plant a library or compiled code for this program to run. It is `<name>-native` in the user's
 * cache home (XDG: `$XDG_CACHE_HOME`, else `$HOME/.cache`), never a name others can take first in a shared folder.
 * When that cannot be used (no home, not writable, or something not this user's private folder there, which it
 * names in one warning line), a fresh folder from mkdtemp (0700) in the temporary folder, removed at exit
 * (`lasting` false: nothing kept there is found again). Threads get the main thread's answer (environment data),
 * so a thread loads the library the main thread wrote. It throws, naming `what`, only when both fail.
 */
function privateCacheDirSource(name: string): string {
  const folder = `${name}-native`;
  return `
function privateCacheDir(what) {
  const threads = require("node:worker_threads");
  const KEY = ${JSON.stringify(`release:${folder}`)};
  const chosen = threads.getEnvironmentData(KEY);
  if (chosen !== undefined) return chosen;
  const { lstatSync, mkdirSync, mkdtempSync, rmSync, statSync } = require("node:fs");
  const { isAbsolute, join } = require("node:path");
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  // A folder (not a link) of this user's that no one else can write to...
  const own = (st) => st.isDirectory() && (uid === null || (st.uid === uid && (st.mode & 0o022) === 0));
  // ... in one where no one else can rename it: this user's or root's, writable by no one else, or sticky.
  const steady = (st) =>
    st.isDirectory() &&
    (uid === null || ((st.uid === uid || st.uid === 0) && ((st.mode & 0o022) === 0 || (st.mode & 0o1000) !== 0)));
  const { XDG_CACHE_HOME: xdg, HOME: home } = process.env;
  const cacheHome = xdg && isAbsolute(xdg) ? xdg : home && isAbsolute(home) ? join(home, ".cache") : null;
  let found = null;
  if (cacheHome !== null) {
    const dir = join(cacheHome, ${JSON.stringify(folder)});
    try {
      mkdirSync(cacheHome, { recursive: true, mode: 0o700 });
      if (steady(statSync(cacheHome))) {
        try {
          mkdirSync(dir, { mode: 0o700 });
        } catch {}
        if (own(lstatSync(dir))) found = { dir, lasting: true };
        else process.stderr.write("warning: " + dir + " is not a private folder of this user's (remove it): this run keeps its native libraries and compiled code in a temporary folder\\n");
      }
    } catch {}
  }
  if (found === null) {
    let dir;
    try {
      dir = mkdtempSync(join(require("node:os").tmpdir(), ${JSON.stringify(`${folder}-`)}));
    } catch (err) {
      throw new Error("found no private folder for " + what + ": " + err.message);
    }
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    found = { dir, lasting: false };
  }
  threads.setEnvironmentData(KEY, found);
  return found;
}
`;
}

/**
 * Source that defines `loadEmbedded()`: it loads a native binary embedded in the bundle from a content-named
 * file in the private cache folder, writing the file again when its digest is not the embedded one. It throws
 * when no private folder can be made. `extractedOnly`: the loader of a thread, which the program's main thread starts
 * only after loading the binary itself, so it carries no copy of the bytes and throws if the file is not there.
 */
function embeddedLoaderSource(
  nodeFile: string,
  name: string,
  library: string,
  extractedOnly = false,
): string {
  const bytes = readFileSync(nodeFile);
  const digest = createHash("sha256").update(bytes).digest("hex");
  const write = extractedOnly
    ? `throw new Error(file + " is missing or not the library this program was built with");`
    : `const tmp = file + "." + process.pid;
    writeFileSync(tmp, Buffer.from(${JSON.stringify(bytes.toString("base64"))}, "base64"), { mode: 0o755 });
    renameSync(tmp, file);`;
  return `${privateCacheDirSource(name)}
const { createHash } = require("node:crypto");
const { existsSync, readFileSync, renameSync, writeFileSync } = require("node:fs");
const { join } = require("node:path");
function loadEmbedded() {
  const { dir } = privateCacheDir(${JSON.stringify(`the ${library} library this program loads`)});
  const file = join(dir, ${JSON.stringify(`${basename(nodeFile, ".node")}-${digest.slice(0, 16)}.node`)});
  const digestOf = (p) => createHash("sha256").update(readFileSync(p)).digest("hex");
  if (!existsSync(file) || digestOf(file) !== "${digest}") {
    ${write}
  }
  const m = { exports: {} };
  process.dlopen(m, file);
  return m.exports;
}
`;
}

/** What the program kept in the launcher's closing comment holds instead of each star-slash. */
const ESCAPED_COMMENT_END = "*\u0001/";

/**
 * The program with each non-ASCII UTF-16 unit written as a `\u` escape. esbuild escapes strings, template
 * literals and identifiers already; what is left is in comments and regular expressions, where the escape means
 * the same character. An ASCII file is read and scanned as one-byte text, which is faster for Node and the
 * launcher alike. A character right after a backslash (an escape of its own) is refused rather than guessed at.
 */
function asciiOnly(program: string): string {
  return program.replace(/(\\?)([\u0080-\uffff])/g, (_, backslash: string, unit: string) => {
    if (backslash) throw new Error(`the bundle escapes a non-ASCII character: \\${unit}`);
    return `\\u${unit.charCodeAt(0).toString(16).padStart(4, "0")}`;
  });
}

/**
 * How long a run goes before it writes the code cache of a long-running process (`start`): by then start-up
 * compiled what a node runs.
 */
const FULL_CACHE_AFTER_MS = 3000;

/**
 * bin/<name> as written: a launcher, then `program` (the bundle) inside a comment to the end of the file, which
 * Node's own load skips without parsing. The launcher compiles the program with V8's code cache, kept in the
 * private cache folder under the program's digest and Node's version, architecture and flags, so a run with the
 * cache deserializes compiled code instead of parsing megabytes of JavaScript (Node 20 has no
 * module.enableCompileCache). Without a kept cache it takes the one the release ships beside the executable
 * (bin/<name>.code-cache, see shipped-code-cache.ts), when that names this program's digest, its sha256 matches
 * and it belongs to this user or the executable's owner with no one else able to write it. A run without a
 * usable cache writes one as it exits; a run that lasts FULL_CACHE_AFTER_MS (a node) writes one then, holding
 * what start-up compiled, unless its cache came from such a run already (its first byte says which). The cache
 * only saves time: when the folder is a temporary one (see privateCacheDir), nothing is kept, and when V8 rejects
 * the cache (another Node, or damaged), the program is compiled from its source as before, silently. With RELEASE_CODE_CACHE_DEBUG=1 the launcher writes one line
 * to stderr saying which cache it tried and whether it was used: `code cache: <none|local|shipped>
 * [accepted|rejected]` (rejected: untrusted, not this program's, damaged, or refused by V8).
 */
function launched(bundled: string, name: string): { text: string; digest: string } {
  if (bundled.includes("\u0001"))
    throw new Error("the bundle holds a U+0001 character, which the launcher uses to escape it");
  const program = asciiOnly(bundled).replaceAll("*/", ESCAPED_COMMENT_END);
  const digest = createHash("sha256").update(program).digest("hex").slice(0, 16);
  const head = (start: number, end: number, line: number) => `#!/usr/bin/env node
"use strict";
// The program is in the comment at the end of this file; this launcher runs it (see scripts/release.ts).
${privateCacheDirSource(name)}
(() => {
  const { closeSync, fstatSync, openSync, readFileSync, renameSync, statSync, writeFileSync } = require("node:fs");
  const { join } = require("node:path");
  const { Script } = require("node:vm");
  const source = readFileSync(__filename)
    .toString("latin1", ${String(start).padStart(10)}, ${String(end).padStart(10)})
    .replaceAll(${JSON.stringify(ESCAPED_COMMENT_END)}, "*/");
  const BRIEF = ${CODE_CACHE_KIND.BRIEF};
  const FULL = ${CODE_CACHE_KIND.FULL};
  let cacheFile = null;
  let cached;
  let from = "none";
  try {
    const node = JSON.stringify([process.version, process.arch, process.execArgv, process.env.NODE_OPTIONS ?? ""]);
    const key = require("node:crypto").createHash("sha256").update(node).digest("hex").slice(0, 16);
    const { dir, lasting } = privateCacheDir("code compiled from this program");
    if (lasting) {
      cacheFile = join(dir, ${JSON.stringify(`${name}-${digest}-`)} + key + ".code-cache");
      cached = readFileSync(cacheFile);
      from = "local";
    }
  } catch {}
  if (cached === undefined) {
    let fd = null;
    try {
      fd = openSync(__filename + ${JSON.stringify(SHIPPED_CODE_CACHE_SUFFIX)}, "r");
      from = "shipped";
      // Compiled code runs as this user: it must come from this user or the executable's owner, and no one
      // else may have been able to write it (a file planted beside a binary copied into /tmp is neither).
      const st = fstatSync(fd);
      const uid = typeof process.getuid === "function" ? process.getuid() : null;
      const trusted = uid === null || ((st.uid === uid || st.uid === statSync(__filename).uid) && (st.mode & 0o022) === 0);
      const shipped = trusted ? readFileSync(fd) : Buffer.alloc(0);
      const body = shipped.subarray(${digest.length + 32});
      const sha256 = require("node:crypto").createHash("sha256").update(body).digest();
      if (trusted && shipped.toString("latin1", 0, ${digest.length}) === "${digest}" && sha256.equals(shipped.subarray(${digest.length}, ${digest.length + 32})))
        cached = body;
    } catch {} finally {
      if (fd !== null) closeSync(fd);
    }
  }
  const script = new Script("(function (exports, require, module, __filename, __dirname) {\\n" + source + "\\n})", {
    filename: __filename,
    lineOffset: ${String(line - 2).padStart(10)},
    cachedData: cached?.subarray(1),
  });
  const usable = cached !== undefined && !script.cachedDataRejected;
  if (process.env.RELEASE_CODE_CACHE_DEBUG === "1")
    process.stderr.write("code cache: " + from + (from === "none" ? "" : usable ? " accepted" : " rejected") + "\\n");
  if (cacheFile !== null && !(usable && cached[0] === FULL)) {
    let saved = false;
    const save = (kind) => {
      if (saved) return;
      saved = true;
      try {
        const tmp = cacheFile + "." + process.pid;
        writeFileSync(tmp, Buffer.concat([Buffer.of(kind), script.createCachedData()]), { mode: 0o600 });
        renameSync(tmp, cacheFile);
      } catch {}
    };
    if (!usable) process.once("exit", () => save(BRIEF));
    setTimeout(() => save(FULL), ${FULL_CACHE_AFTER_MS}).unref();
  }
  script.runInThisContext()(module.exports, require, module, __filename, __dirname);
})();
/*
`;
  const draft = head(0, 0, 0);
  const start = Buffer.byteLength(draft);
  const end = start + Buffer.byteLength(program);
  return { text: `${head(start, end, draft.split("\n").length)}${program}\n*/\n`, digest };
}

/** classic-level's binding loader, replaced by one of the embedded binary; LevelDB is required to run at all. */
function embeddedLevelDbPlugin(nodeFile: string, name: string): Plugin {
  return {
    name: "embedded-leveldb-binding",
    setup(b) {
      b.onLoad({ filter: /classic-level[\\/]binding\.js$/ }, () => ({
        loader: "js",
        contents: `${embeddedLoaderSource(nodeFile, name, "LevelDB")}
try {
  module.exports = loadEmbedded();
} catch (err) {
  process.stderr.write("Error: " + err.message + "\\n");
  process.exit(1);
}
`,
      }));
    },
  };
}

/**
 * chaind's libsecp256k1 loader (node/src/crypto/secp256k1-binding.ts), replaced by one of the embedded binary
 * wrapped in the `secp256k1` package's API; when it throws, chaind falls back to @noble/curves with a warning.
 */
function embeddedSecp256k1Plugin(nodeFile: string, name: string, extractedOnly = false): Plugin {
  return {
    name: "embedded-secp256k1-binding",
    setup(b) {
      b.onLoad({ filter: /crypto[\\/]secp256k1-binding\.ts$/ }, (args) => ({
        loader: "js",
        resolveDir: dirname(args.path),
        contents: `${embeddedLoaderSource(nodeFile, name, "libsecp256k1", extractedOnly)}
const wrap = require("secp256k1/lib/index.js");
export function loadSecp256k1Binding() {
  return wrap(new (loadEmbedded().Secp256k1)());
}
`,
      }));
    },
  };
}

/** This platform's prebuilt binding from a package's prebuilds/ (glibc or musl on Linux). */
function prebuiltBinding(pkg: string, from?: string): string {
  const prebuilds = join(packageDir(pkg, from), "prebuilds");
  const dirs = [`${process.platform}-${process.arch}`, `${process.platform}-x64+arm64`];
  const dir = dirs.map((d) => join(prebuilds, d)).find((d) => existsSync(d));
  if (!dir) throw new Error(`${pkg} has no prebuilt binding for ${dirs[0]}`);
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  const musl = process.platform === "linux" && !report?.header?.glibcVersionRuntime;
  const files = readdirSync(dir).filter((f) => f.endsWith(".node"));
  const pick = files.find((f) => (musl ? f.includes("musl") : !f.includes("musl"))) ?? files[0];
  return join(dir, pick);
}

function entryOf(app: string): string {
  const p = resolve(root, app);
  if (existsSync(p) && statSync(p).isDirectory()) {
    const main = join(p, "main.ts");
    if (!existsSync(main)) throw new Error(`${app} has no main.ts`);
    return main;
  }
  if (!existsSync(p)) throw new Error(`no such app entry: ${app}`);
  return p;
}

function sha256File(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** DER of a PKCS#8 ed25519 private key, up to its 32-byte seed. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * An ed25519 private key from a file: PEM (PKCS#8, as `openssl genpkey -algorithm ed25519` writes it), or the
 * 32-byte seed in hex or base64.
 */
function signingKey(file: string): KeyObject {
  const text = readFileSync(file, "utf8").trim();
  let key: KeyObject;
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

interface ReleaseSigner {
  /** What visor's VISOR_TRUSTED_KEYS takes: the raw public key, hex. */
  publicKey: string;
  /** Writes `<archive>.sig` and answers its path. */
  sign(archive: string, sha256: string): string;
}

/**
 * Signs archives for one plan on this platform: `sign` writes `<archive>.sig`, base64 of the ed25519 signature
 * over visor's signed message (plan, platform, digest). Made before the build, so a bad key fails at once.
 */
function releaseSigner(signKey: string, plan: string | undefined): ReleaseSigner {
  if (!plan) throw new Error("--sign-key needs --plan <the upgrade's plan name>");
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

/** The workspaces' build output folders, which a release must never take code from. */
function workspaceDists(): string[] {
  const { workspaces } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    workspaces: string[];
  };
  return workspaces.map((w) => join(root, w, "dist") + sep);
}

/** What the program's bundle and the RPC thread's are built with. */
const BUNDLE_OPTIONS = {
  write: false as const,
  bundle: true,
  platform: "node" as const,
  format: "cjs" as const,
  target: "node20",
  // Workspaces resolve to their TypeScript sources; "module" is esbuild's default, kept for dependencies.
  conditions: ["source", "module"],
  logLevel: "error" as const,
  legalComments: "none" as const,
  metafile: true as const,
} satisfies BuildOptions;

/** An export without a `source` entry, or an app importing a dist/ path, would ship whatever was last built. */
function refuseCompiledInputs(inputs: Record<string, unknown>): void {
  const dists = workspaceDists();
  const stale = Object.keys(inputs)
    .map((input) => resolve(input))
    .filter((input) => dists.some((d) => input.startsWith(d)));
  if (stale.length > 0)
    throw new Error(`the bundle would take compiled code instead of sources: ${relative(root, stale[0])}`);
}

/** A worker thread with code of its own: the module naming its script, its entry beside it, the name exported. */
interface EmbeddedThread {
  scriptModule: RegExp;
  entry: string;
  exportName: string;
  plugins?: Plugin[];
}

/**
 * chaind's threads (the RPC's HTTP thread, the signature thread) run code of their own, which a one-file release
 * cannot keep beside it: each module that locates a thread's code is replaced by one holding its bundle as text.
 */
function embeddedThreadsPlugin(threads: readonly EmbeddedThread[]): Plugin {
  return {
    name: "embedded-threads",
    setup(b) {
      for (const t of threads) {
        b.onLoad({ filter: t.scriptModule }, async (args) => {
          const { metafile, outputFiles } = await build({
            ...BUNDLE_OPTIONS,
            entryPoints: [join(dirname(args.path), t.entry)],
            plugins: t.plugins,
          });
          refuseCompiledInputs(metafile.inputs);
          const code = JSON.stringify(outputFiles[0].text);
          return { loader: "js", contents: `export const ${t.exportName} = { code: ${code} };` };
        });
      }
    },
  };
}

/** Writes `executable`: the bundle of `entry` under the launcher; answers the program's digest. */
async function bundle(entry: string, executable: string, name: string, version: string): Promise<string> {
  const secp256k1Binary = prebuiltBinding("secp256k1", join(root, "node"));
  const { metafile, outputFiles } = await build({
    ...BUNDLE_OPTIONS,
    entryPoints: [entry],
    outfile: executable,
    banner: { js: CJS_BANNER },
    define: {
      "import.meta.url": "__releaseImportMetaUrl",
      __RELEASE_VERSION__: JSON.stringify(version),
    },
    plugins: [
      embeddedLevelDbPlugin(prebuiltBinding("classic-level"), name),
      embeddedSecp256k1Plugin(secp256k1Binary, name),
      embeddedThreadsPlugin([
        {
          scriptModule: /rpc[\\/]rpc-thread-script\.ts$/,
          entry: "rpc-http-thread.ts",
          exportName: "RPC_THREAD_SCRIPT",
        },
        {
          scriptModule: /crypto[\\/]signature-thread-script\.ts$/,
          entry: "signature-thread.ts",
          exportName: "SIGNATURE_THREAD_SCRIPT",
          plugins: [embeddedSecp256k1Plugin(secp256k1Binary, name, true)],
        },
      ]),
    ],
  });
  refuseCompiledInputs(metafile.inputs);
  mkdirSync(dirname(executable), { recursive: true });
  const { text, digest } = launched(outputFiles[0].text, name);
  writeFileSync(executable, text, { mode: 0o755 });
  chmodSync(executable, 0o755);
  return digest;
}

/** `<name>-<version>-<os>-<arch>.tar.gz`, for this platform. */
function archiveName(name: string, version: string): string {
  const [os, arch] = goPlatform().split("/");
  return `${name}-${version}-${os}-${arch}.tar.gz`;
}

/** Packs the stage's bin/ into `archive` and lists its sha256 in SHA256SUMS beside it (other lines kept). */
async function packArchive(stage: string, archive: string): Promise<string> {
  await createTar({ gzip: true, file: archive, cwd: stage, portable: true, noMtime: true }, ["bin"]);
  const sha256 = sha256File(archive);
  const name = basename(archive);
  const sums = join(dirname(archive), "SHA256SUMS");
  const others = existsSync(sums)
    ? readFileSync(sums, "utf8")
        .split("\n")
        .filter((l) => l.trim() && !l.endsWith(`  ${name}`))
    : [];
  writeFileSync(sums, `${[...others, `${sha256}  ${name}`].join("\n")}\n`);
  return sha256;
}

/** Plan.info naming `archive` at `base` for this platform, checked as chaind's CLI and visor will read it. */
export function planInfoFor(base: string, archive: string, sha256: string): string {
  const planInfo = JSON.stringify({
    binaries: { [goPlatform()]: `${base}/${archive}?checksum=sha256:${sha256}` },
  });
  validatePlanInfo(planInfo, { requireChecksum: true });
  return planInfo;
}

function checkVersion(version: string): void {
  if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version))
    throw new Error(`bad --version ${JSON.stringify(version)}`);
}

export interface ReleaseOptions {
  /** A folder with main.ts, or an entry file, relative to the repository root. */
  app: string;
  version: string;
  /** Where the archive, SHA256SUMS and plan info go (default releases/). */
  out?: string;
  /** The executable's name, bin/<name> (default chaind). */
  name?: string;
  /** The URL the archive will be served from; without it, the plan info names a file: URL. */
  baseUrl?: string;
  /**
   * Ship the V8 code cache of a training run (`testnet`, then `start`; see shipped-code-cache.ts). Default true;
   * false for a program without those commands.
   */
  codeCache?: boolean;
  /** An ed25519 private key file: sign the archive for `plan` (see releaseSigner). */
  signKey?: string;
  plan?: string;
}

export interface Release {
  archive: string;
  sha256: string;
  /** Plan.info JSON text: this platform's archive URL carrying its checksum. */
  planInfo: string;
  signature: { path: string; publicKey: string } | null;
}

/** Builds one release of a chain binary (see the head of this file). */
export async function buildRelease(opts: ReleaseOptions): Promise<Release> {
  const { version, name = "chaind" } = opts;
  checkVersion(version);
  const entry = entryOf(opts.app);
  const signer = opts.signKey ? releaseSigner(opts.signKey, opts.plan) : null;
  const outDir = resolve(opts.out ?? join(root, "releases"));
  const base = opts.baseUrl ? opts.baseUrl.replace(/\/$/, "") : pathToFileURL(outDir).href;
  const file = archiveName(name, version);
  // The archive's URL, checked before the build as the plan info will be after it.
  try {
    parseChecksummedUrl(`${base}/${file}`, false);
  } catch (e) {
    throw new Error(`bad --base-url: ${(e as Error).message}`);
  }
  mkdirSync(outDir, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "chaind-release-"));
  try {
    const bin = join(stage, "bin");
    const digest = await bundle(entry, join(bin, name), name, version);
    cpSync(packageDir("swagger-ui-dist", packageDir("chaind")), join(bin, "swagger-ui"), {
      recursive: true,
      filter: (src) => !src.endsWith(".map"),
    });
    // Last: the training run's node serves the Swagger UI beside it.
    if (opts.codeCache ?? true) await writeShippedCodeCache(join(bin, name), name, digest);
    const archive = join(outDir, file);
    const sha256 = await packArchive(stage, archive);
    const planInfo = planInfoFor(base, file, sha256);
    writeFileSync(join(outDir, `plan-info-${version}.json`), `${planInfo}\n`);
    const signature = signer ? { path: signer.sign(archive, sha256), publicKey: signer.publicKey } : null;
    return { archive, sha256, planInfo, signature };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

export interface VisorRelease {
  archive: string;
  sha256: string;
  /** supervisor/package.json's version, which `visor version` prints. */
  version: string;
}

/** visor as operators install it: bin/visor alone, versioned by its workspace's package.json. */
export async function buildVisorRelease(opts: { out?: string } = {}): Promise<VisorRelease> {
  const dir = packageDir("visor");
  const { version } = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string };
  checkVersion(version);
  const outDir = resolve(opts.out ?? join(root, "releases"));
  mkdirSync(outDir, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "visor-release-"));
  try {
    await bundle(join(dir, "src", "cli", "main.ts"), join(stage, "bin", "visor"), "visor", version);
    const archive = join(outDir, archiveName("visor", version));
    return { archive, sha256: await packArchive(stage, archive), version };
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

const USAGE = [
  "usage: npm run release -- --app <app dir> --version <v> [--out dir] [--name chaind] [--base-url url]",
  "         [--sign-key file --plan name]",
  "       npm run release -- --visor [--out dir]",
].join("\n");

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      app: { type: "string" },
      version: { type: "string" },
      out: { type: "string" },
      name: { type: "string" },
      "base-url": { type: "string" },
      "sign-key": { type: "string" },
      plan: { type: "string" },
      visor: { type: "boolean", default: false },
    },
  });
  if (values.visor) {
    const chainOnly = ["app", "version", "name", "base-url", "sign-key", "plan"] as const;
    const given = chainOnly.filter((k) => values[k] !== undefined);
    if (given.length > 0) {
      console.error(
        `--visor takes only --out (its version is supervisor/package.json's); drop --${given[0]}`,
      );
      process.exit(2);
    }
    const r = await buildVisorRelease({ out: values.out });
    console.log(`${basename(r.archive)}  sha256:${r.sha256}`);
    return;
  }
  if (!values.app || !values.version) {
    console.error(USAGE);
    process.exit(2);
  }
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
    console.log(`signature: ${r.signature.path} (plan ${values.plan}, public key ${r.signature.publicKey})`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    await main();
  } catch (e) {
    console.error(`release failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
