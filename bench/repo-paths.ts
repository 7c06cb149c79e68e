import { existsSync } from "node:fs";
import { join } from "node:path";

/** The checkout, found from here whether this runs from source or from dist/bench. */
function findRepoRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(join(dir, "node", "bin", "chaind.js"))) {
    const up = join(dir, "..");
    if (up === dir) throw new Error("cannot find the repository root (node/bin/chaind.js) above bench/");
    dir = up;
  }
  return dir;
}

export const REPO_ROOT = findRepoRoot();
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
export const DOC_TEMPLATE = join(REPO_ROOT, "bench", "BENCHMARKS.template.md");
export const BENCHMARKS_DOC = join(REPO_ROOT, "docs", "BENCHMARKS.md");
