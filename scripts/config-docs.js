#!/usr/bin/env node
// Writes the settings tables of docs/CONFIG.md (app.toml, config.toml, client.toml) and docs/OPERATIONS.md
// (visor) from the config tables. Reads the compiled code in dist/ (run `npm run build` first).
// Usage: node scripts/config-docs.js [--check]   (--check: exit 1 when a file is stale, write nothing)

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dist = (path) => join(root, "dist", path);
const modules = [
  "node/src/config/config-table.js",
  "node/src/config/config-docs.js",
  "supervisor/src/visor-config.js",
];
if (!modules.every((m) => existsSync(dist(m)))) {
  console.error(`compiled code not found under ${join(root, "dist")}: run npm run build first`);
  process.exit(1);
}
const [{ withGeneratedRegions }, { nodeConfigDocRegions }, { visorSettingsDoc }] = await Promise.all(
  modules.map((m) => import(pathToFileURL(dist(m)).href)),
);
const docs = [
  ["docs/CONFIG.md", nodeConfigDocRegions()],
  ["docs/OPERATIONS.md", { "visor settings": visorSettingsDoc() }],
];
const check = process.argv.includes("--check");
let stale = 0;
for (const [path, regions] of docs) {
  const file = join(root, path);
  const current = readFileSync(file, "utf8");
  const fresh = withGeneratedRegions(current, regions);
  if (current === fresh) continue;
  stale++;
  if (check) console.error(`${path} is stale: run node scripts/config-docs.js`);
  else {
    writeFileSync(file, fresh);
    console.log(`wrote ${path}`);
  }
}
if (check && stale > 0) process.exitCode = 1;
