import { join } from "node:path";
import { repoRoot } from "../scripts/repo-root.js";

/** The checkout, whether this runs from source or from dist/bench. */
export const REPO_ROOT = repoRoot(import.meta.dirname);
export const RESULTS_DIR = join(REPO_ROOT, "bench", "results");
export const DOC_TEMPLATE = join(REPO_ROOT, "bench", "BENCHMARKS.template.md");
export const BENCHMARKS_DOC = join(REPO_ROOT, "docs", "BENCHMARKS.md");
