import { readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, normalize } from "node:path";
import ts from "typescript";

/** A workspace's folder, its package name, and the workspaces it may import (through their `exports`). */
export interface WorkspaceRule {
  dir: string;
  name: string;
  mayImport: string[];
}

/** Which workspace may import which: the layout docs/ARCHITECTURE.md draws. Visor never imports chaind. */
export const WORKSPACES: WorkspaceRule[] = [
  { dir: "core", name: "@chaind/core", mayImport: [] },
  { dir: "proto", name: "@chaind/proto", mayImport: [] },
  { dir: "node", name: "chaind", mayImport: ["@chaind/core", "@chaind/proto"] },
  { dir: "supervisor", name: "visor", mayImport: ["@chaind/core", "@chaind/proto"] },
  { dir: "harness", name: "@chaind/harness", mayImport: ["@chaind/core", "chaind", "visor"] },
];

/**
 * Test folders reach into the sources of what they test by relative path; everything else, tests included,
 * goes through a workspace's `exports`.
 */
const TEST_REACH: Record<string, string[]> = {
  node: ["node"],
  supervisor: ["supervisor"],
  harness: ["harness"],
  e2e: ["node", "supervisor"],
  reliability: ["node", "supervisor"],
};

export interface SourceFile {
  /** Relative to the repository root, with forward slashes. */
  path: string;
  text: string;
}

/** What a file imports, as the TypeScript compiler reads it: static, dynamic, `export … from` and require. */
export function importsOf(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

const packageOf = (spec: string) =>
  spec
    .split("/")
    .slice(0, spec.startsWith("@") ? 2 : 1)
    .join("/");
const BUILTINS = new Set(builtinModules);
const isBuiltin = (spec: string) => spec.startsWith("node:") || BUILTINS.has(packageOf(spec));

/** Every import that crosses a boundary it should not, as `<file>: <why>`. */
export function boundaryViolations(
  files: SourceFile[],
  deps: { workspaceDeps: Map<string, Set<string>>; rootDeps: Set<string> },
): string[] {
  const out: string[] = [];
  const byName = new Map(WORKSPACES.map((w) => [w.name, w]));
  const workspaceAt = (path: string) => WORKSPACES.find((w) => path.startsWith(`${w.dir}/`)) ?? null;
  for (const file of files) {
    const own = workspaceAt(file.path);
    const testArea = file.path.startsWith("test/") ? file.path.split("/")[1] : null;
    for (const spec of importsOf(file.text)) {
      if (spec.startsWith(".")) {
        const target = normalize(join(dirname(file.path), spec)).replaceAll("\\", "/");
        const there = workspaceAt(target);
        if (own && there !== own) {
          // A workspace's files reach nothing outside its folder by path: not another workspace, not the root.
          out.push(
            there
              ? `${file.path}: imports ${spec}, inside workspace ${there.name}; import "${there.name}/…" instead`
              : `${file.path}: imports ${spec}, outside workspace ${own.name}`,
          );
          continue;
        }
        if (!there || there === own) continue;
        if (testArea && (TEST_REACH[testArea] ?? []).includes(there.dir)) continue;
        out.push(
          `${file.path}: imports ${spec}, inside workspace ${there.name}; import "${there.name}/…" instead`,
        );
        continue;
      }
      if (isBuiltin(spec)) continue;
      const pkg = packageOf(spec);
      const target = byName.get(pkg);
      if (own) {
        if (target && target !== own && !own.mayImport.includes(pkg))
          out.push(`${file.path}: ${own.name} may not import ${pkg}`);
        else if (target !== own && !deps.workspaceDeps.get(own.name)?.has(pkg))
          out.push(`${file.path}: imports ${pkg}, missing from ${own.dir}/package.json dependencies`);
      } else if (!target && !deps.rootDeps.has(pkg)) {
        out.push(`${file.path}: imports ${pkg}, missing from the root package.json`);
      }
    }
  }
  return out;
}

const SKIP = new Set(["node_modules", "dist", "results"]);

/** The repository's TypeScript and JavaScript sources, without dependencies and build output. */
export function repositorySources(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = dir ? `${dir}/${e.name}` : e.name;
      if (e.name.startsWith(".") || SKIP.has(e.name)) continue;
      if (e.isDirectory()) walk(path);
      else if (/\.(ts|js|cjs|mjs)$/.test(e.name))
        files.push({ path, text: readFileSync(join(root, path), "utf8") });
    }
  };
  walk("");
  return files;
}

interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

/** Each workspace's runtime dependencies, and everything the root package lists. */
export function declaredDependencies(root: string) {
  const read = (p: string) => JSON.parse(readFileSync(join(root, p), "utf8")) as PackageJson;
  const workspaceDeps = new Map(
    WORKSPACES.map((w) => [w.name, new Set(Object.keys(read(`${w.dir}/package.json`).dependencies ?? {}))]),
  );
  const top = read("package.json");
  const rootDeps = new Set([
    ...Object.keys(top.dependencies ?? {}),
    ...Object.keys(top.devDependencies ?? {}),
    ...WORKSPACES.map((w) => w.name),
  ]);
  return { workspaceDeps, rootDeps };
}
