import { readFileSync, writeFileSync } from "node:fs";
import type { BenchSection } from "./bench-result.js";
import { BENCHMARKS_DOC, DOC_TEMPLATE } from "./repo-paths.js";
import type { BenchResults } from "./results-file.js";

const fmt = (x: number) =>
  Number.isFinite(x) ? (Math.abs(x) >= 100 ? Math.round(x).toLocaleString("en-US") : String(x)) : "n/a";

function sectionTable(s: BenchSection): string {
  const params = Object.entries(s.params)
    .map(([k, v]) => `${k}=${v}`)
    .join(", ");
  const rows = s.figures.map(
    (f) =>
      `| ${f.name} | ${fmt(f.median)} ${f.unit} | ${f.samples.map(fmt).join(", ")} | ${f.ceiling ?? "—"} | ${
        f.ratio !== undefined ? fmt(f.ratio) : "—"
      } |`,
  );
  return [
    `Measured with: ${params}.`,
    "",
    "| Figure | Median | Runs | Compared to | Ratio |",
    "| --- | --- | --- | --- | --- |",
    ...rows,
    ...(s.notes.length > 0 ? ["", ...s.notes.map((n) => `- ${n}`)] : []),
  ].join("\n");
}

/** Regenerates docs/BENCHMARKS.md from the template in bench/ and a day's results; answers its path. */
export function writeBenchmarksDoc(results: BenchResults, order: readonly string[]): string {
  const m = results.machine;
  let doc = readFileSync(DOC_TEMPLATE, "utf8");
  doc = doc.replace(
    "{{machine}}",
    `${m.cores} cores (${m.cpuModel}), ${m.memoryGb} GB memory, ${m.platform}, Node ${m.node}`,
  );
  const modes = new Set(results.sections.map((s) => s.params.mode));
  const mode = modes.size === 1 ? [...modes][0] : "mixed";
  const sizes =
    mode === "full"
      ? "full sizes"
      : mode === "quick"
        ? "a --quick run at scaled-down sizes, given in each section"
        : "some sections at full sizes, some from a --quick run; each section gives its sizes and mode";
  const remarks = (results.notes ?? []).map((n) => ` ${n}`).join("");
  doc = doc.replace("{{run}}", `bench/results/${results.date}.json (${sizes}).${remarks}`);
  for (const id of order) {
    const s = results.sections.find((x) => x.id === id);
    const failed = results.failures.find((f) => f.id === id);
    const text = s
      ? sectionTable(s)
      : failed
        ? `Not measured: the benchmark failed in this run (${failed.error}).`
        : "Not measured in this run.";
    doc = doc.replace(`{{section:${id}}}`, text);
  }
  writeFileSync(BENCHMARKS_DOC, doc);
  return BENCHMARKS_DOC;
}
