import { readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { redactUrls } from "../errors/url-redaction.js";
import type { VisorLayout } from "../home/visor-layout.js";

/** One step of a rehearsal, in the order they happen; `ms` null when it did not happen (and `note` says why). */
export interface RehearsalStep {
  step:
    | "copy"
    | "run_to_halt"
    | "download"
    | "verify"
    | "switch"
    | "pre_upgrade"
    | "start_new_binary"
    | "handler"
    | "first_block";
  ms: number | null;
  note?: string;
}

/** What `visor rehearse` prints (`-o json`), keeps as the last rehearsal, and passes to the notification. */
export interface RehearsalReport {
  plan: { name: string; height: number };
  result: "ok" | "failed";
  /** Why it failed, at which step, and the last lines the daemons and visor printed. */
  failure: { step: RehearsalStep["step"]; reason: string; log: string[] } | null;
  /** The live home's height the copy was taken at. */
  copied_at_height: number | null;
  steps: RehearsalStep[];
  /** Module versions of the copy before the upgrade (the old binary) and after (the new one). */
  module_versions: { before: Record<string, string> | null; after: Record<string, string> | null };
  /** Blocks the new binary committed, the upgrade block among them. */
  blocks_after_upgrade: number;
  peak_memory_bytes: number;
  peak_disk_bytes: number;
  started_at: string;
  total_ms: number;
}

const MiB = 1024 * 1024;
const secs = (ms: number | null) => (ms === null ? "-" : `${(ms / 1000).toFixed(1)} s`);

function versionChanges(v: RehearsalReport["module_versions"]): string[] {
  if (!v.before || !v.after) return ["  (not known)"];
  const names = [...new Set([...Object.keys(v.before), ...Object.keys(v.after)])].sort();
  return names.map((n) => {
    const [a, b] = [v.before?.[n] ?? "-", v.after?.[n] ?? "-"];
    return `  ${n.padEnd(16)} ${a}${a === b ? "" : ` -> ${b}`}`;
  });
}

/** The report for a person: the verdict first, then each step, the versions, and the failure's log lines. */
export function rehearsalText(r: RehearsalReport): string {
  const verdict =
    r.result === "ok"
      ? `rehearsal of upgrade "${r.plan.name}" passed: the new binary made ${r.blocks_after_upgrade} blocks`
      : `rehearsal of upgrade "${r.plan.name}" FAILED at ${r.failure?.step}: ${r.failure?.reason}`;
  const lines = [
    verdict,
    `copied the live home at height ${r.copied_at_height ?? "?"}; the plan is due at height ${r.plan.height}`,
    "",
    "steps:",
    ...r.steps.map((s) => `  ${s.step.padEnd(17)} ${secs(s.ms).padStart(9)}${s.note ? `  (${s.note})` : ""}`),
    `  ${"total".padEnd(17)} ${secs(r.total_ms).padStart(9)}`,
    "",
    `peak memory ${(r.peak_memory_bytes / MiB).toFixed(0)} MiB, peak disk ${(r.peak_disk_bytes / MiB).toFixed(1)} MiB (beyond what the copy shares with the live home)`,
    "",
    "module versions:",
    ...versionChanges(r.module_versions),
  ];
  if (r.failure?.log.length) lines.push("", "last log lines:", ...r.failure.log.map((l) => `  ${l}`));
  return redactUrls(lines.join("\n"));
}

export const rehearsalJson = (r: RehearsalReport) => redactUrls(JSON.stringify(r, null, 2));

/** The last rehearsal's report, whoever ran it (`visor rehearse`, or visor on its schedule), for `visor status`. */
export const lastRehearsalFile = (layout: VisorLayout) => join(layout.root, "rehearsal", "last.json");

export function writeLastRehearsal(layout: VisorLayout, r: RehearsalReport): void {
  writeFileAtomic(lastRehearsalFile(layout), `${rehearsalJson(r)}\n`, { mode: 0o600 });
}

export function readLastRehearsal(layout: VisorLayout): RehearsalReport | null {
  try {
    return JSON.parse(readFileSync(lastRehearsalFile(layout), "utf8")) as RehearsalReport;
  } catch {
    return null;
  }
}
