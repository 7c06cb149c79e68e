import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BenchSection } from "./bench-result.js";
import type { MachineDescription } from "./machine.js";
import { RESULTS_DIR } from "./repo-paths.js";

/** What one `npm run bench` writes to bench/results/<date>.json. */
export interface BenchResults {
  date: string;
  /** "full" or "quick" (scaled-down sizes); a file merged from runs of both says "mixed". */
  mode: "full" | "quick" | "mixed";
  machine: MachineDescription;
  sections: BenchSection[];
  /** Remarks on the run as a whole (e.g. what else the machine was doing). */
  notes?: string[];
  /** Benchmarks that failed in the run, with the reason. */
  failures: { id: string; error: string }[];
}

/** "full" or "quick" when every section ran at those sizes, else "mixed". */
function modeOf(sections: BenchSection[], fallback: BenchResults["mode"]): BenchResults["mode"] {
  const modes = new Set(sections.map((s) => s.params.mode));
  if (modes.size === 0) return fallback;
  if (modes.size > 1) return "mixed";
  return modes.has("quick") ? "quick" : "full";
}

/** A full run's file is `<date>.json`; a --quick smoke check writes `<date>-quick.json` and leaves it alone. */
export function resultsPath(date: string, mode: "full" | "quick"): string {
  return join(RESULTS_DIR, mode === "quick" ? `${date}-quick.json` : `${date}.json`);
}

/**
 * Writes the run's results; sections of other benchmarks already in the same day's file (an `--only` run) are
 * kept, in the order of `order`, so a day's file can be completed benchmark by benchmark.
 */
export function writeResults(run: BenchResults, order: readonly string[]): BenchResults {
  const path = resultsPath(run.date, run.mode === "quick" ? "quick" : "full");
  let merged = run;
  if (existsSync(path)) {
    const old = JSON.parse(readFileSync(path, "utf8")) as BenchResults;
    const fresh = new Set([...run.sections.map((s) => s.id), ...run.failures.map((f) => f.id)]);
    const sections = [...old.sections.filter((s) => !fresh.has(s.id)), ...run.sections];
    sections.sort((a, b) => order.indexOf(a.id) - order.indexOf(b.id));
    merged = {
      ...run,
      // Remarks on the old run stay only while some of its sections do.
      notes: [
        ...(sections.some((s) => old.sections.includes(s)) ? (old.notes ?? []) : []),
        ...(run.notes ?? []),
      ],
      mode: modeOf(sections, run.mode),
      sections,
      failures: [...old.failures.filter((f) => !fresh.has(f.id)), ...run.failures],
    };
  }
  mkdirSync(RESULTS_DIR, { recursive: true });
  writeFileSync(path, `${JSON.stringify(merged, null, 2)}\n`);
  return merged;
}

/** The newest full run's results in bench/results (names are dates, so they sort by time). */
export function readLatestResults(): BenchResults {
  const files = existsSync(RESULTS_DIR)
    ? readdirSync(RESULTS_DIR).filter((f) => /^\d{4}-\d{2}-\d{2}\.json$/.test(f))
    : [];
  const latest = files.sort().pop();
  if (!latest) throw new Error(`no results in ${RESULTS_DIR}: run npm run bench first`);
  return JSON.parse(readFileSync(join(RESULTS_DIR, latest), "utf8")) as BenchResults;
}
