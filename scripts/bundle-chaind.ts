// Bundles chaind's CLI for node/bin/chaind.js; `npm run build` runs it after tsc -b.
//
// node/dist/bundle/ holds node/dist/cli/main.js as tsc built it, with everything it imports, as dozens of ES
// modules: chaind.js, and one chunk per command it loads lazily (and chunks they share), so a command still
// loads only its own code, but Node resolves and compiles a handful of files instead of hundreds, which took most
// of a short command's CPU. Unlike a release (scripts/release.ts) it runs inside the checkout, so each bundled module
// keeps its own location (import.meta.url, and __filename and __dirname in CommonJS): what a module finds beside
// itself (package.json for the version, the worker threads' scripts, Swagger UI, yargs' locales, native
// bindings through createRequire) is found where the unbundled build finds it. classic-level, a native addon
// that locates its binary from its own folder, stays outside. The source maps lead back to the TypeScript
// through tsc's, for `node --enable-source-maps`.

import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, join, relative, sep } from "node:path";
import { build, type Plugin } from "esbuild";
import { repoRoot } from "./repo-root.js";

const root = repoRoot();
const OUTDIR = join(root, "node", "dist", "bundle");
const ENTRY = join(OUTDIR, "chaind.js");

// What each output file defines before its modules run: `require` for CommonJS dependencies (an ES module has
// none), and its own URL, which its modules' locations are relative to (every file is in OUTDIR).
const BANNER = [
  'import { createRequire as __bundleCreateRequire } from "node:module";',
  'import { fileURLToPath as __bundleFileURLToPath } from "node:url";',
  "const require = __bundleCreateRequire(import.meta.url);",
  "const __bundleUrl = import.meta.url;",
].join("\n");

/**
 * Each module that reads its location gets it as three variables of its own, made from the bundle's URL and the
 * module's path relative to the bundle (so a moved checkout still finds its files); `define` points the
 * location's names at them (free names only: a module's own `const __dirname` stays its own). Prepended to the
 * module's first line, so the lines of its source map still match.
 */
function ownLocationPlugin(): Plugin {
  const names = /import\.meta\.url|__filename|__dirname/;
  return {
    name: "own-location",
    setup(b) {
      b.onLoad({ filter: /\.[cm]?js$/ }, (args) => {
        const text = readFileSync(args.path, "utf8");
        if (!names.test(text)) return undefined;
        const path = relative(OUTDIR, args.path).split(sep).join("/");
        const location =
          `var __moduleUrl = new URL(${JSON.stringify(path)}, __bundleUrl).href, ` +
          "__moduleFile = __bundleFileURLToPath(__moduleUrl), " +
          '__moduleDir = __bundleFileURLToPath(new URL(".", __moduleUrl)).replace(/\\/$/, "");';
        return { contents: location + text, loader: "js" };
      });
    },
  };
}

const { outputFiles } = await build({
  entryPoints: { chaind: join(root, "node", "dist", "cli", "main.js") },
  outdir: OUTDIR,
  write: false,
  bundle: true,
  splitting: true,
  chunkNames: "[name]-[hash]",
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["classic-level"],
  banner: { js: BANNER },
  define: { "import.meta.url": "__moduleUrl", __filename: "__moduleFile", __dirname: "__moduleDir" },
  plugins: [ownLocationPlugin()],
  sourcemap: "linked",
  legalComments: "none",
  logLevel: "error",
});

// Each file renamed into place, the entry last (node/bin/chaind.js compares its time with tsc's builds), then
// what the previous build left: a chaind starting meanwhile finds whole files of one build or the other.
mkdirSync(OUTDIR, { recursive: true });
const entryLast = [
  ...outputFiles.filter((f) => f.path !== ENTRY),
  ...outputFiles.filter((f) => f.path === ENTRY),
];
for (const f of entryLast) {
  const tmp = `${f.path}.${process.pid}`;
  writeFileSync(tmp, f.contents);
  renameSync(tmp, f.path);
}
const made = new Set(outputFiles.map((f) => basename(f.path)));
for (const f of readdirSync(OUTDIR)) if (!made.has(f)) rmSync(join(OUTDIR, f));
