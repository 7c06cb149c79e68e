import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../../node/src");
/** The folders whose files must sit in no import cycle (type-only imports count: they bind the code too). */
const CHECKED = ["server", "chain"];

/** Every .ts file under node/src and the node/src files it imports by relative path. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    const file = join(entry.parentPath, entry.name);
    const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
    const imports: string[] = [];
    for (const s of source.statements) {
      if (!(ts.isImportDeclaration(s) || ts.isExportDeclaration(s)) || !s.moduleSpecifier) continue;
      const spec = (s.moduleSpecifier as ts.StringLiteral).text;
      if (spec.startsWith("."))
        imports.push(relative(SRC, resolve(dirname(file), spec.replace(/\.js$/, ".ts"))));
    }
    graph.set(relative(SRC, file), imports);
  }
  return graph;
}

/** The import cycles of a graph: its strongly connected components of more than one file (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

const folderOf = (file: string) => file.split("/")[0];

describe("node/src/server and node/src/chain imports", () => {
  const graph = importGraph();

  it("finds a cycle when there is one", () => {
    const looped = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    expect(cycles(looped)).toEqual([["a.ts", "b.ts", "c.ts"]]);
    expect(cycles(new Map([...looped, ["c.ts", []]]))).toEqual([]);
  });

  it("form no import cycle", () => {
    const involved = cycles(graph).filter((c) => c.some((f) => CHECKED.includes(folderOf(f))));
    expect(involved).toEqual([]);
  });

  it("go one way: chain never imports the servers that serve it", () => {
    const back = [...graph]
      .filter(([file]) => folderOf(file) === "chain")
      .flatMap(([file, imports]) =>
        imports.filter((i) => folderOf(i) === "server").map((i) => `${file} -> ${i}`),
      );
    expect(back).toEqual([]);
  });
});
