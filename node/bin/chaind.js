#!/usr/bin/env node
import { statSync } from "node:fs";

// npm run build bundles dist/cli/main.js into dist/bundle/ (scripts/bundle-chaind.ts), which starts with far less
// CPU. When a tsc build of chaind, core or proto is newer than the bundle (`tsc -b` alone after an edit), or there
// is no bundle, the unbundled build runs: a stale bundle never does.
const mtime = (path) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
const bundled = mtime("../dist/bundle/chaind.js") ?? Number.NEGATIVE_INFINITY;
const builds = ["../dist/.tsbuildinfo", "../../core/dist/.tsbuildinfo", "../../proto/dist/.tsbuildinfo"];
const fresh = builds.every((b) => (mtime(b) ?? Number.POSITIVE_INFINITY) <= bundled);
await import(fresh ? "../dist/bundle/chaind.js" : "../dist/cli/main.js");
