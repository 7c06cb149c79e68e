import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { readSource } from "../artifacts/artifact-source.js";
import type { VisorConfig } from "../config/visor-config.js";
import { readUpgradeInfo, samePlanName, type UpgradePlan } from "../daemon/upgrade-info.js";
import { redactUrls } from "../errors/url-redaction.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { lastRehearsalFile, readLastRehearsal } from "../reporting/rehearsal-report.js";
import { readBatch } from "./batch-feed.js";
import type { NextUpgrade, VisorStatus } from "./visor-status.js";

/** An artifact visor fetched (and verified) for a folder, as its record says. */
export interface ArtifactReport {
  plan: string;
  /** The folder holding it: `current`'s upgrade folder, or the next plan's pre-fetch folder. */
  folder: string;
  url: string;
  sha256: string;
  /** Whether its signature was checked against VISOR_TRUSTED_KEYS. */
  signature_checked: boolean;
  fetched_at: string;
}

/** `visor status -o json`: one document; these field names are stable (docs/OPERATIONS.md, visor status). */
export interface StatusReport {
  /** The folder `current` points at, and the plan it runs (null: genesis). */
  current: string;
  current_plan: { name: string; height: number } | null;
  running_binary: string | null;
  child_pid: number | null;
  /** The plan upgrade-info.json names that `current` does not run yet: applied at the halt or the next start. */
  pending: UpgradePlan | null;
  /** The next upgrade known before its halt (node or batch file) and what its last check found. */
  next_upgrade: NextUpgrade | null;
  /** Upgrades queued by add-upgrade --upgrade-height / add-batch-upgrade, by height. */
  batch: { name: string; height: number }[];
  /** The pre-fetch of the plan the node schedules; null when there is none (a cancelled plan's is not shown). */
  prefetch: VisorStatus["prefetch"];
  /** The artifact visor fetched last, of `current` and the pre-fetch; null when neither was fetched by visor. */
  last_artifact: ArtifactReport | null;
  last_upgrade: VisorStatus["last_upgrade"];
  trial: VisorStatus["trial"];
  last_rollback: VisorStatus["last_rollback"];
  /** The last `visor rehearse` (by hand or on VISOR_REHEARSE_BEFORE's schedule); its whole report is in `report`. */
  last_rehearsal: {
    plan: string;
    height: number;
    result: "ok" | "failed";
    failed_step: string | null;
    reason: string | null;
    at: string;
    total_ms: number;
    report: string;
  } | null;
  /** When the running (or last) visor last wrote its status; null when no visor has run on the home. */
  updated_at: string | null;
}

function artifactOf(dir: string, folder: string): ArtifactReport | null {
  const s = readSource(dir);
  if (!s) return null;
  return {
    plan: s.plan,
    folder,
    url: s.artifact.shown,
    sha256: s.sha256,
    signature_checked: s.signature_checked === true,
    fetched_at: s.fetched_at,
  };
}

/** What `visor status` reports, from the status file the running visor keeps and the home's own files. */
export function statusReport(config: VisorConfig, layout: VisorLayout): StatusReport {
  const file: Partial<VisorStatus> = existsSync(layout.statusFile)
    ? JSON.parse(readFileSync(layout.statusFile, "utf8"))
    : {};
  const current = layout.currentDir();
  const running = layout.currentPlan();
  const runs = (p: { name: string; height: number }) =>
    running !== null && samePlanName(running.name, p.name, config) && running.height >= p.height;
  const info = readUpgradeInfo(layout.upgradeInfoFile);
  const pending = info && !runs(info) ? info : null;
  let batch: UpgradePlan[] = [];
  try {
    batch = readBatch(layout.batchFile);
  } catch {
    // visor run logs why the batch file is unusable; status shows the rest.
  }
  const next = file.next_upgrade && !runs(file.next_upgrade) ? file.next_upgrade : null;
  // The pre-fetcher drops the state of a plan the node no longer schedules; one of another plan than the next
  // (left by a visor stopped since) is not shown either.
  const prefetch = file.prefetch && (!next || file.prefetch.plan === next.name) ? file.prefetch : null;
  const fetched = [
    artifactOf(current, relative(layout.root, current)),
    prefetch
      ? artifactOf(
          layout.prefetchDirOf(prefetch.plan),
          relative(layout.root, layout.prefetchDirOf(prefetch.plan)),
        )
      : null,
  ].filter((a): a is ArtifactReport => a !== null);
  return {
    current,
    current_plan: running,
    running_binary: file.running_binary ?? null,
    child_pid: file.child_pid ?? null,
    pending,
    next_upgrade: next,
    batch: batch.map(({ name, height }) => ({ name, height })),
    prefetch,
    last_artifact: fetched.sort((a, b) => b.fetched_at.localeCompare(a.fetched_at))[0] ?? null,
    last_upgrade: file.last_upgrade ?? null,
    trial: file.trial ?? null,
    last_rollback: file.last_rollback ?? null,
    last_rehearsal: lastRehearsal(layout),
    updated_at: file.updated_at ?? null,
  };
}

function lastRehearsal(layout: VisorLayout): StatusReport["last_rehearsal"] {
  const r = readLastRehearsal(layout);
  if (!r) return null;
  return {
    plan: r.plan.name,
    height: r.plan.height,
    result: r.result,
    failed_step: r.failure?.step ?? null,
    reason: r.failure?.reason ?? null,
    at: r.started_at,
    total_ms: r.total_ms,
    report: lastRehearsalFile(layout),
  };
}

const at = (p: { name: string; height: number }) => `${p.name} at height ${p.height}`;

/** The report for a person, one fact a line; URLs redacted as everywhere visor prints. */
export function statusText(r: StatusReport): string {
  const lines: [string, string][] = [];
  const add = (k: string, v: string) => lines.push([k, v]);
  add("current", `${r.current}${r.current_plan ? ` (${at(r.current_plan)})` : " (genesis)"}`);
  add("daemon", r.child_pid ? `pid ${r.child_pid}, ${r.running_binary}` : "not running");
  add(
    "pending",
    r.pending ? `${at(r.pending)} (upgrade-info.json; applied now or at the next start)` : "none",
  );
  const n = r.next_upgrade;
  if (!n) add("next upgrade", "none known");
  else {
    const when = n.estimated_at ? `, estimated ${n.estimated_at}` : "";
    add("next upgrade", `${at(n)} (from ${n.source}${when}): ${n.ready ? "ready" : "NOT READY"}`);
    add("  binary", `${n.binary}; signature ${n.signature}; checked ${n.checked_at}`);
    for (const p of n.problems) add("  problem", p);
  }
  add("batch", r.batch.length ? r.batch.map(at).join(", ") : "empty");
  add(
    "pre-fetch",
    r.prefetch
      ? `${r.prefetch.plan}: ${r.prefetch.state}${r.prefetch.error ? ` (${r.prefetch.error})` : ""}`
      : "none",
  );
  const a = r.last_artifact;
  add(
    "last artifact",
    a
      ? `${a.plan} in ${a.folder} from ${a.url}, sha256 ${a.sha256}, signature ${a.signature_checked ? "checked" : "not checked"}`
      : "none fetched by visor",
  );
  const u = r.last_upgrade;
  add(
    "last upgrade",
    u
      ? `${at({ name: u.plan, height: u.height })}: ${u.result}${u.error ? ` (${u.error})` : ""} at ${u.at}`
      : "none",
  );
  if (r.trial)
    add("on trial", `${at({ name: r.trial.plan, height: r.trial.height })}, ${r.trial.failures} failure(s)`);
  if (r.last_rollback)
    add(
      "last rollback",
      `${at({ name: r.last_rollback.plan, height: r.last_rollback.height })}: ${r.last_rollback.reason}`,
    );
  const h = r.last_rehearsal;
  add(
    "last rehearsal",
    h
      ? `${h.plan}: ${h.result === "ok" ? "passed" : `FAILED at ${h.failed_step} (${h.reason})`}, ${h.at}, ${(h.total_ms / 1000).toFixed(0)} s (${h.report})`
      : "none",
  );
  add("status written", r.updated_at ?? "never (no visor has run on this home)");
  const width = Math.max(...lines.map(([k]) => k.length)) + 2;
  return redactUrls(lines.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`).join("\n"));
}

/** The JSON form, redacted. */
export function statusJson(r: StatusReport): string {
  return redactUrls(JSON.stringify(r, null, 2));
}
