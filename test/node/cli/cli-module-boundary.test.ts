import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(import.meta.dirname, "../../../node/src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

/** Every module a file imports or re-exports (static, dynamic, type-only), as a path relative to node/src. */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, "utf8"), true, true);
  return importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => relative(SRC, resolve(dirname(file), spec)));
}

/** `from -> to` for each import of a file under `from` that reaches into `to`. */
function crossings(from: string, to: string): string[] {
  return sourceFiles(join(SRC, from)).flatMap((file) =>
    importsOf(file)
      .filter((target) => target.startsWith(`${to}/`))
      .map((target) => `${relative(SRC, file)} -> ${target}`),
  );
}

// The CLI reaches modules only through the app they make up (AppModule's command builders); module CLIs use the
// client code, never the CLI. A module added by an app thereby gets its commands without touching cli/.
describe("import boundaries between cli/, modules/ and client/", () => {
  it("sees the imports it checks", () => {
    expect(crossings("cli", "client").length).toBeGreaterThan(10);
    expect(crossings("modules", "client")).toContain("modules/bank/bank-cli.ts -> client/run-tx.js");
    expect(crossings("cli", "chain")).toContain("cli/cli-app.ts -> chain/app-definition.js");
  });

  it("cli/ imports no module by name", () => {
    expect(crossings("cli", "modules")).toEqual([]);
  });

  it("neither modules/ nor client/ import cli/", () => {
    expect(crossings("modules", "cli")).toEqual([]);
    expect(crossings("client", "cli")).toEqual([]);
  });
});
