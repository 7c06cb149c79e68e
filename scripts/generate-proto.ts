#!/usr/bin/env node
// Generates the TypeScript code for proto/ with `buf generate` (template proto/buf.gen.yaml, plugin
// protoc-gen-es). Usage: npm run proto [-- out-dir]   (default proto/gen)
//
// The output folder is replaced as a whole, so files of removed protos vanish. Generation goes to a
// temporary folder first: a failed run leaves the previous output untouched.

import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { repoRoot } from "./repo-root.js";

const root = repoRoot();
// Must match `out` in proto/buf.gen.yaml.
const templateOut = join("proto", "gen");

export function generateProto(outDir: string = join(root, templateOut)): string {
  const buf = join(root, "node_modules", ".bin", process.platform === "win32" ? "buf.cmd" : "buf");
  if (!existsSync(buf)) throw new Error(`buf not found at ${buf}: run npm install`);

  const staging = mkdtempSync(join(tmpdir(), "chaind-proto-"));
  try {
    execFileSync(
      buf,
      ["generate", "proto", "--template", join("proto", "buf.gen.yaml"), "--output", staging],
      {
        cwd: root,
        stdio: ["ignore", "inherit", "inherit"],
      },
    );
    rmSync(outDir, { recursive: true, force: true });
    cpSync(join(staging, templateOut), outDir, { recursive: true });
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  return outDir;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const outDir = process.argv[2] ? resolve(process.argv[2]) : undefined;
  try {
    const written = generateProto(outDir);
    console.log(`generated ${written}`);
  } catch (err) {
    console.error(`proto generation failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
