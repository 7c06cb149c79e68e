// Writes the settings tables of docs/CONFIG.md (app.toml, config.toml, client.toml) and docs/OPERATIONS.md
// (visor) from the config tables. Usage: npm run docs:config [-- --check]   (--check: exit 1 when a file is
// stale, write nothing)

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { withGeneratedRegions } from "@chaind/core/config-table";
import { nodeConfigDocRegions } from "chaind/config/config-docs";
import { visorSettingsDoc } from "visor/visor-config";
import { repoRoot } from "./repo-root.js";

const root = repoRoot();
const docs: [string, Record<string, string>][] = [
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
  if (check) console.error(`${path} is stale: run npm run docs:config`);
  else {
    writeFileSync(file, fresh);
    console.log(`wrote ${path}`);
  }
}
if (check && stale > 0) process.exitCode = 1;
