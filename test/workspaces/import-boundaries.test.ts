import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { boundaryViolations, declaredDependencies, repositorySources } from "./import-boundaries.js";

const ROOT = join(import.meta.dirname, "..", "..");

describe("workspace boundaries", () => {
  const deps = declaredDependencies(ROOT);
  const sources = repositorySources(ROOT);

  it("no file reaches into another workspace, and every import is a declared dependency", () => {
    expect(sources.length).toBeGreaterThan(300);
    expect(boundaryViolations(sources, deps)).toEqual([]);
  });

  it("refuses visor reaching into chaind's sources, or importing chaind at all", () => {
    const planted = [
      { path: "supervisor/src/planted.ts", text: 'import { App } from "../../node/src/app/app.js";\n' },
      { path: "supervisor/src/planted-2.ts", text: 'import type { App } from "chaind/app/app";\n' },
      { path: "bench/planted.ts", text: 'const m = await import("../node/src/app/app.js");\n' },
      {
        path: "supervisor/src/planted-3.ts",
        text: 'import { buildRelease } from "../../scripts/release.js";\n',
      },
    ];
    expect(boundaryViolations([...sources, ...planted], deps)).toEqual([
      'supervisor/src/planted.ts: imports ../../node/src/app/app.js, inside workspace chaind; import "chaind/…" instead',
      "supervisor/src/planted-2.ts: visor may not import chaind",
      'bench/planted.ts: imports ../node/src/app/app.js, inside workspace chaind; import "chaind/…" instead',
      "supervisor/src/planted-3.ts: imports ../../scripts/release.js, outside workspace visor",
    ]);
  });

  it("refuses a runtime import its workspace does not declare (visor's execa is a dependency)", () => {
    const planted = [{ path: "supervisor/src/planted.ts", text: 'import { x } from "left-pad";\n' }];
    expect(boundaryViolations(planted, deps)).toEqual([
      "supervisor/src/planted.ts: imports left-pad, missing from supervisor/package.json dependencies",
    ]);
    expect(deps.workspaceDeps.get("visor")?.has("execa")).toBe(true);
  });
});
