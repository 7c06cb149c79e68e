import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import type { Logger } from "@chaind/core/logger";
import { renderConfigToml } from "../config/cosmovisor-config-file.js";
import type { VisorConfig } from "../config/visor-config.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { readLastRehearsal } from "../reporting/rehearsal-report.js";
import type { UpgradeNotifier } from "../reporting/upgrade-notifier.js";
import type { VisorMetrics } from "../reporting/visor-metrics.js";
import type { NextUpgrade } from "./visor-status.js";

/**
 * VISOR_REHEARSE_BEFORE: once the node schedules a plan and its estimated time is that near, visor runs
 * `visor rehearse <plan>` once, as a child process of its own (so the copy's daemons never share visor's
 * process or memory; it lowers its own priority, and its daemons', below the live node's), with the settings
 * visor runs with. The outcome goes where operators look: the status
 * (`last_rehearsal`, from the report the child writes), a metric, a notification event and an ERR line when
 * the upgrade would fail. A halt that comes first stops the rehearsal, which removes its copy.
 */
export class RehearsalSchedule {
  private child: ChildProcess | null = null;
  private exited: Promise<void> = Promise.resolve();
  /** Plans (name and height) rehearsed, or started, by this visor. */
  private readonly tried = new Set<string>();

  constructor(
    private readonly ctx: {
      config: VisorConfig;
      layout: VisorLayout;
      metrics: VisorMetrics | null;
      notifier: UpgradeNotifier;
      logger: Logger;
    },
  ) {}

  tick(next: NextUpgrade | null, estimatedAt: (height: number) => string | null): void {
    const lead = this.ctx.config.rehearseBeforeMs;
    if (lead <= 0 || this.child || !next || next.source !== "node") return;
    const key = `${next.name}@${next.height}`;
    if (this.tried.has(key)) return;
    const last = readLastRehearsal(this.ctx.layout);
    if (last?.plan.name === next.name && last.plan.height === next.height) {
      this.tried.add(key);
      return;
    }
    const eta = estimatedAt(next.height);
    if (eta === null || Date.parse(eta) - Date.now() > lead) return;
    this.tried.add(key);
    this.start(next);
  }

  private start(plan: NextUpgrade): void {
    const { config, layout, logger } = this.ctx;
    // The settings this visor runs with, whatever file or environment they came from.
    const dir = join(layout.root, "rehearsal");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const settings = join(dir, "visor.toml");
    writeFileAtomic(settings, renderConfigToml(config), { mode: 0o600 });
    const args = [process.argv[1], "--cosmovisor-config", settings, "rehearse", plan.name, "-o", "json"];
    const child = spawn(process.execPath, args, { stdio: ["ignore", "ignore", "pipe"] });
    this.child = child;
    logger.info("rehearsing the next upgrade on a copy of the home (VISOR_REHEARSE_BEFORE)", {
      plan: plan.name,
      height: plan.height,
      pid: child.pid ?? null,
    });
    let stderr = "";
    child.stderr?.on("data", (b: Buffer) => {
      stderr = (stderr + b.toString("utf8")).slice(-4096);
    });
    const started = new Date().toISOString();
    this.exited = new Promise((resolve) => {
      child.once("error", (e) => logger.warn("cannot start the rehearsal", { err: e.message }));
      child.once("close", (code) => {
        this.child = null;
        rmSync(settings, { force: true });
        this.finished(plan, code, started, stderr);
        resolve();
      });
    });
  }

  private finished(plan: NextUpgrade, code: number | null, started: string, stderr: string): void {
    const { layout, metrics, notifier, logger } = this.ctx;
    const r = readLastRehearsal(layout);
    if (!r || r.plan.name !== plan.name || r.started_at < started) {
      const why = stderr.trim().split("\n").pop() ?? `exit status ${code}`;
      logger.warn("the rehearsal did not run", { plan: plan.name, why });
      return;
    }
    metrics?.rehearsalPassed.set({ plan: plan.name }, r.result === "ok" ? 1 : 0);
    metrics?.rehearsalSeconds.set(r.total_ms / 1000);
    notifier.notify("rehearsed", plan, {
      result: r.result,
      failed_step: r.failure?.step ?? null,
      reason: r.failure?.reason ?? null,
      total_ms: r.total_ms,
    });
    if (r.result === "ok")
      logger.info("rehearsal passed", { plan: plan.name, blocks: r.blocks_after_upgrade, ms: r.total_ms });
    else
      logger.error(
        `upgrade ${plan.name} at height ${plan.height} will fail: its rehearsal failed at ${r.failure?.step}: ${r.failure?.reason}`,
        { plan: plan.name },
      );
  }

  /** Stops a rehearsal under way (it removes its copy) and waits for it. */
  async stop(): Promise<void> {
    this.child?.kill("SIGTERM");
    await this.exited;
  }
}
