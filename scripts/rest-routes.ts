#!/usr/bin/env node
// Writes docs/REST-ROUTES.md: every REST route declared by the google.api.http annotations of the generated
// descriptors, which it imports from @chaind/proto, one module per generated file.
// Usage: npm run docs:routes [-- --check]   (--check: exit 1 when the file is stale, write nothing)

import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import type { DescService } from "@bufbuild/protobuf";
import { renderRestRoutesDoc, servicesIn } from "chaind/server/rest/rest-routes-doc";
import { repoRoot } from "./repo-root.js";

const target = join(repoRoot(), "docs", "REST-ROUTES.md");

/** Every service of @chaind/proto: its generated files are listed in gen/ and imported through its exports. */
async function generatedServices(): Promise<DescService[]> {
  const gen = join(dirname(createRequire(import.meta.url).resolve("@chaind/proto/package.json")), "gen");
  const services: DescService[] = [];
  for (const rel of readdirSync(gen, { recursive: true }).map(String).sort()) {
    if (!rel.endsWith("_pb.ts")) continue;
    const specifier = `@chaind/proto/${rel.slice(0, -".ts".length).replaceAll("\\", "/")}`;
    services.push(...servicesIn((await import(specifier)) as Record<string, unknown>));
  }
  return services;
}

const text = renderRestRoutesDoc(await generatedServices());
if (process.argv.includes("--check")) {
  const current = existsSync(target) ? readFileSync(target, "utf8") : "";
  if (current !== text) {
    console.error(`${target} is stale: run npm run docs:routes`);
    process.exit(1);
  }
  console.log(`${target} is up to date`);
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target}`);
}
