import { readFileSync } from "node:fs";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { redactUrls } from "../errors/url-redaction.js";
import type { ReadinessCheck } from "./upgrade-readiness.js";
import type { UpgradeTrial } from "./upgrade-trial.js";

/** The next upgrade as visor-status.json and `visor status` show it. */
export interface NextUpgrade extends ReadinessCheck {
  name: string;
  height: number;
  /** Where visor learned of it: the node's scheduled plan, or the batch file (add-upgrade --upgrade-height). */
  source: "node" | "batch";
  ready: boolean;
  /** When the node should reach the height, at the pace of the blocks visor has seen; null until it knows. */
  estimated_at: string | null;
  /** The node's height when it was checked (null: its API did not answer). */
  node_height: number | null;
  checked_at: string;
}

export interface VisorStatus {
  running_binary: string | null;
  current_upgrade: string | null;
  child_pid: number | null;
  pending_plan: UpgradePlan | null;
  /** The next upgrade the node or the batch file names, and whether its halt will find what it needs. */
  next_upgrade: NextUpgrade | null;
  /** The pre-fetch of the plan the node schedules now (null once that plan is cancelled). */
  prefetch: { plan: string; state: "downloading" | "ready" | "failed"; error?: string } | null;
  last_upgrade: {
    plan: string;
    height: number;
    result: "ok" | "failed" | "rolled_back";
    error?: string;
    at: string;
    ms: number;
  } | null;
  /** The last upgrade, while its new binary has not yet committed a block above the upgrade height. */
  trial: UpgradeTrial | null;
  /** The last upgrade rolled back, and why. */
  last_rollback: {
    plan: string;
    height: number;
    reason: string;
    backup: string;
    /** The data folder as the failed binary left it, set aside. */
    failed_data: string | null;
    current: string;
    at: string;
  } | null;
  updated_at: string;
}

/** Keeps `$DAEMON_HOME/cosmovisor/visor-status.json` current (written whole, then renamed) for `visor status`. */
export class StatusFile {
  private status: VisorStatus = {
    running_binary: null,
    current_upgrade: null,
    child_pid: null,
    pending_plan: null,
    next_upgrade: null,
    prefetch: null,
    last_upgrade: null,
    trial: null,
    last_rollback: null,
    updated_at: new Date().toISOString(),
  };

  /** The file as the last visor left it, if any: its daemon may still run, its last upgrade still counts. */
  readonly previous: VisorStatus | null;

  constructor(private readonly path: string) {
    try {
      this.previous = JSON.parse(readFileSync(path, "utf8")) as VisorStatus;
      this.status.last_upgrade = this.previous.last_upgrade ?? null;
      this.status.trial = this.previous.trial ?? null;
      this.status.last_rollback = this.previous.last_rollback ?? null;
    } catch {
      this.previous = null;
    }
  }

  update(patch: Partial<VisorStatus>): void {
    this.status = { ...this.status, ...patch, updated_at: new Date().toISOString() };
    try {
      // Plan.info and errors may name URLs with credentials: the file keeps them redacted.
      writeFileAtomic(this.path, `${redactUrls(JSON.stringify(this.status, null, 2))}\n`);
    } catch {
      // Status is advisory; a read-only folder must not stop an upgrade.
    }
  }

  get current(): VisorStatus {
    return this.status;
  }
}
