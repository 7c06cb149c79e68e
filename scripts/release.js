#!/usr/bin/env node
// Builds a self-contained release of a chain binary:
//   node scripts/release.js --app <dir with main.ts | entry file> --version <v> [--out <dir>] [--name chaind]
//     [--base-url <url the archive will be served from>]
// Writes <out>/chaind-<v>-<os>-<arch>.tar.gz, <out>/SHA256SUMS and <out>/plan-info-<v>.json.
//
// The archive holds everything but Node itself: bin/<name> (a launcher), lib/<name>.js (one esbuild bundle of
// the app and its dependencies), lib/prebuilds/<platform>/ (LevelDB's native binding for this platform),
// lib/swagger-ui/ (the Swagger UI assets) and a package.json that marks the bundle as ESM and carries the
// version. It runs from any folder with no `npm install`.

import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
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

// Bundled CommonJS code (LevelDB's binding loader) reads __dirname and calls require: give it both, relative
// to the bundle, so the native binding is found in lib/prebuilds.
const ESM_BANNER = [
  'import { createRequire as __releaseCreateRequire } from "node:module";',
  'import { fileURLToPath as __releaseFileURLToPath } from "node:url";',
  'import { dirname as __releaseDirname } from "node:path";',
  "const require = __releaseCreateRequire(import.meta.url);",
  "const __filename = __releaseFileURLToPath(import.meta.url);",
  "const __dirname = __releaseDirname(__filename);",
].join("\n");

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

/**
 * Builds one release; answers the archive path, its sha256 and the plan-info JSON text (whose URL carries the
 * checksum when a base URL is given).
 */
export async function buildRelease({ app, version, out, name = "chaind", baseUrl }) {
  if (!/^[0-9A-Za-z][0-9A-Za-z.+_-]*$/.test(version))
    throw new Error(`bad --version ${JSON.stringify(version)}`);
  const entry = entryOf(app);
  const outDir = resolve(out ?? join(root, "releases"));
  mkdirSync(outDir, { recursive: true });
  const stage = mkdtempSync(join(tmpdir(), "chaind-release-"));
  try {
    const lib = join(stage, "lib");
    mkdirSync(join(stage, "bin"), { recursive: true });
    await build({
      entryPoints: [entry],
      outfile: join(lib, `${name}.js`),
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      banner: { js: ESM_BANNER },
      logLevel: "error",
      legalComments: "none",
    });
    const prebuilds = join(dirname(require.resolve("classic-level/package.json")), "prebuilds");
    const platformDir = `${process.platform}-${process.arch}`;
    const native = [platformDir, `${process.platform}-x64+arm64`].find((d) => existsSync(join(prebuilds, d)));
    if (!native) throw new Error(`classic-level has no prebuilt binding for ${platformDir}`);
    cpSync(join(prebuilds, native), join(lib, "prebuilds", native), { recursive: true });
    cpSync(dirname(require.resolve("swagger-ui-dist/package.json")), join(lib, "swagger-ui"), {
      recursive: true,
      filter: (src) => !src.endsWith(".map"),
    });
    writeFileSync(
      join(stage, "package.json"),
      `${JSON.stringify({ name: `${name}-release`, version, private: true, type: "module" }, null, 2)}\n`,
    );
    const launcher = join(stage, "bin", name);
    writeFileSync(launcher, `#!/usr/bin/env node\nimport "../lib/${name}.js";\n`);
    chmodSync(launcher, 0o755);

    const [os, arch] = goPlatform().split("/");
    const archiveName = `${name}-${version}-${os}-${arch}.tar.gz`;
    const archive = join(outDir, archiveName);
    await createTar({ gzip: true, file: archive, cwd: stage, portable: true, noMtime: true }, [
      "package.json",
      "bin",
      "lib",
    ]);
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
    return { archive, sha256, planInfo };
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
    },
  });
  if (!values.app || !values.version) {
    console.error("usage: npm run release -- --app <app dir> --version <v> [--out dir] [--base-url url]");
    process.exit(2);
  }
  try {
    const r = await buildRelease({
      app: values.app,
      version: values.version,
      out: values.out,
      name: values.name,
      baseUrl: values["base-url"],
    });
    console.log(`${basename(r.archive)}  sha256:${r.sha256}\nplan info: ${r.planInfo}`);
  } catch (e) {
    console.error(`release failed: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
