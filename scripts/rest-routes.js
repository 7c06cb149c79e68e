#!/usr/bin/env node
// Writes docs/REST-ROUTES.md: every REST route declared by the google.api.http annotations of the generated
// descriptors. Reads the compiled code in dist/ (run `npm run build` first).
// Usage: node scripts/rest-routes.js [--check]   (--check: exit 1 when the file is stale, write nothing)

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const genDir = join(root, "dist", "node", "src", "gen");
const docModule = join(root, "dist", "node", "src", "server", "rest", "rest-routes-doc.js");
const target = join(root, "docs", "REST-ROUTES.md");

if (!existsSync(docModule) || !existsSync(genDir)) {
  console.error(`compiled code not found under ${join(root, "dist")}: run npm run build first`);
  process.exit(1);
}

const { renderRestRoutesDoc, servicesIn } = await import(pathToFileURL(docModule).href);
const services = [];
for (const rel of readdirSync(genDir, { recursive: true })) {
  if (!String(rel).endsWith("_pb.js")) continue;
  services.push(...servicesIn(await import(pathToFileURL(join(genDir, String(rel))).href)));
}
const text = renderRestRoutesDoc(services);

if (process.argv.includes("--check")) {
  const current = existsSync(target) ? readFileSync(target, "utf8") : "";
  if (current !== text) {
    console.error(`${target} is stale: run node scripts/rest-routes.js`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
