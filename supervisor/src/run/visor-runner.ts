import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, statSync } from "node:fs";
import type { Writable } from "node:stream";
import { formatGoDuration } from "@chaind/core/go-duration";
import type { Logger } from "@chaind/core/logger";
import { watch } from "chokidar";
import { cleanStaging } from "../artifacts/upgrade-binary.js";
import type { VisorConfig } from "../config/visor-config.js";
import { NodeApi } from "../daemon/node-api.js";
import { readUpgradeInfo, samePlanName, type UpgradePlan } from "../daemon/upgrade-info.js";
import { VisorError } from "../errors/visor-error.js";
import type { VisorLayout } from "../home/visor-layout.js";
import { type UpgradeEvent, UpgradeNotifier } from "../reporting/upgrade-notifier.js";
import type { VisorMetrics } from "../reporting/visor-metrics.js";
import { BatchFeed } from "../upgrade/batch-feed.js";
import { Prefetcher } from "../upgrade/prefetcher.js";
import { RehearsalSchedule } from "../upgrade/rehearsal-schedule.js";
import { ReadinessMonitor } from "../upgrade/upgrade-readiness-monitor.js";
import { rollbackUnderWay, rollbackUpgrade, rolledBackReason } from "../upgrade/upgrade-rollback.js";
import { FirstBlockProbe, type UpgradeTrial } from "../upgrade/upgrade-trial.js";
import { applyUpgrade, finishPreUpgrade } from "../upgrade/upgrader.js";
import { StatusFile } from "../upgrade/visor-status.js";
import { stopOrphanedDaemon } from "./orphaned-daemon.js";
import { RestartBackoff } from "./restart-backoff.js";
import { skipHeightsOf } from "./skip-heights.js";

type ChildOutcome =
  | { kind: "upgrade" }
  | { kind: "exit"; code: number; ranMs: number }
  | { kind: "stopped"; code: number };

const SIGNAL_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143, SIGQUIT: 131, SIGKILL: 137 };

/**
 * Signals this close after the first are the same stop from another sender, not a second request: copies arrive
 * within milliseconds, a person pressing Ctrl-C again takes longer.
 */
const SAME_STOP_WINDOW_MS = 250;

/**
 * `visor run`: launches the daemon from `current`, watches data/upgrade-info.json (file events, with polling as
 * a fallback), stops the daemon when an upgrade is due, applies it and starts the new binary. An upgrade named
 * in upgrade-info.json that `current` does not run yet is applied before anything is launched, so one is never
 * missed: not when the daemon was down at the height, nor when the file appeared while visor was down.
 * Its caller holds the home's lock (VisorHomeLock) throughout, so it is the only visor on the home.
 */
export class VisorRunner {
  private child: ChildProcess | null = null;
  /** Whether the running daemon leads a process group of its own (see runChild). */
  private daemonGroup = false;
  private stopping: NodeJS.Signals | null = null;
  private readonly status: StatusFile;
  private readonly api: NodeApi;
  private readonly batch: BatchFeed;
  private readonly skipHeights: Set<number>;
  private readonly notifier: UpgradeNotifier;
  private readonly backoff: RestartBackoff;
  private readonly readiness: ReadinessMonitor;
  private readonly rehearsals: RehearsalSchedule;
  /** The pre-fetcher of the daemon that runs now. */
  private prefetcher: Prefetcher | null = null;
  /** Ends a wait before a restart early, when a stop is asked for. */
  private wake: (() => void) | null = null;
  private firstStopAt = 0;
  /** Daemons started so far: the first gets `args`, later ones `restartArgs` when given. */
  private launches = 0;

  constructor(
    private readonly config: VisorConfig,
    private readonly layout: VisorLayout,
    private readonly args: readonly string[],
    private readonly deps: {
      logger: Logger;
      metrics: VisorMetrics | null;
      /** Where the daemon's output goes instead of visor's own stdout and stderr. */
      daemonOutput?: Writable;
      /** The arguments of every launch but the first (a rehearsal converts its copy once, then starts it). */
      restartArgs?: readonly string[];
      onEvent?: (event: UpgradeEvent) => void;
    },
  ) {
    this.status = new StatusFile(layout.statusFile);
    this.api = NodeApi.forHome(config, deps);
    this.batch = new BatchFeed({ layout, api: this.api, logger: deps.logger });
    this.skipHeights = skipHeightsOf(args);
    this.backoff = new RestartBackoff(config.restartBackoffMaxMs);
    this.readiness = new ReadinessMonitor({
      ...deps,
      config,
      layout,
      api: this.api,
      status: this.status,
      prefetcher: () => this.prefetcher,
      skipped: (height) => this.skipHeights.has(height),
    });
    this.notifier = new UpgradeNotifier(
      { command: config.notifyCommand, timeoutMs: config.notifyTimeoutMs, onEvent: deps.onEvent },
      deps,
    );
    this.rehearsals = new RehearsalSchedule({ ...deps, config, layout, notifier: this.notifier });
  }

  /**
   * Stops visor as a signal does: the daemon gets `sig` (DAEMON_SHUTDOWN_GRACE applies), and run() answers once
   * it has exited. Asked again later, the daemon is killed.
   */
  stop(sig: NodeJS.Signals): void {
    const child = this.child;
    const again = this.stopping !== null;
    if (!again) {
      this.stopping = sig;
      this.firstStopAt = performance.now();
      this.wake?.();
    }
    if (!child || child.exitCode !== null) return;
    if (again) {
      // One stop often arrives from several senders at once: a terminal's Ctrl-C reaches the whole process
      // group (the daemon too), a parent script passes it on, systemd signals the whole cgroup. Only a signal
      // that comes later is someone asking again: the daemon is killed.
      if (performance.now() - this.firstStopAt < SAME_STOP_WINDOW_MS) {
        this.deps.logger.info("already stopping the daemon; signal again later to kill it", { signal: sig });
        return;
      }
      this.deps.logger.warn("signalled again while the daemon stops: killing it", { signal: sig });
      this.killDaemon(child);
      return;
    }
    child.kill(sig);
    // A daemon that outlives DAEMON_SHUTDOWN_GRACE is killed: visor never leaves it behind.
    if (this.config.shutdownGraceMs > 0) {
      const t = setTimeout(() => {
        if (child.exitCode !== null) return;
        this.deps.logger.warn("daemon did not stop within DAEMON_SHUTDOWN_GRACE: killing it");
        this.killDaemon(child);
      }, this.config.shutdownGraceMs);
      child.once("exit", () => clearTimeout(t));
    }
  }

  /** Runs until the daemon stops for good; answers visor's exit status. */
  async run(): Promise<number> {
    const forward = (sig: NodeJS.Signals) => this.stop(sig);
    const signals: NodeJS.Signals[] = ["SIGINT", "SIGTERM", "SIGQUIT"];
    for (const s of signals) process.on(s, forward);
    cleanStaging(this.layout);
    await stopOrphanedDaemon(this.status.previous, {
      logger: this.deps.logger,
      graceMs: Math.max(this.config.shutdownGraceMs, 10_000),
    });
    try {
      await this.finishRollback();
      for (;;) {
        if (this.stopping) return SIGNAL_CODES[this.stopping] ?? 1;
        const due = this.pendingUpgrade();
        if (due) {
          const rolledBack = await rolledBackReason(this.layout, due);
          if (rolledBack) throw new VisorError("ROLLED_BACK", rolledBack);
          await applyUpgrade(due, {
            ...this.deps,
            config: this.config,
            layout: this.layout,
            status: this.status,
            notifier: this.notifier,
          });
          if (!this.config.restartAfterUpgrade) {
            this.deps.logger.info("upgrade done; not restarting (DAEMON_RESTART_AFTER_UPGRADE=false)");
            return 0;
          }
        }
        await finishPreUpgrade(this.layout, this.config, { ...this.deps, notifier: this.notifier });
        // A signal that came while no daemon ran (during an upgrade) ends visor here, not the next daemon.
        if (this.stopping) return SIGNAL_CODES[this.stopping] ?? 1;
        const outcome = await this.runChild();
        if (outcome.kind === "stopped") return outcome.code;
        if (outcome.kind === "exit") {
          if (outcome.code === 0) return 0;
          if (!this.pendingUpgrade()) {
            const trial = this.status.current.trial;
            if (trial && this.config.rollbackAfterFailures > 0) {
              if (await this.failedOnTrial(trial, outcome.code, outcome.ranMs)) continue;
              return outcome.code;
            }
            this.deps.logger.error("daemon exited with an error and no upgrade is due", {
              code: outcome.code,
            });
            return outcome.code;
          }
        }
      }
    } finally {
      await this.rehearsals.stop();
      for (const s of signals) process.off(s, forward);
      this.api.close();
      await this.notifier.drain();
    }
  }

  /** The upgrade's new binary committed a block above the upgrade height: the upgrade is no longer on trial. */
  private confirmed(trial: UpgradeTrial, seen: { height: number; from: string }): void {
    this.status.update({ trial: null });
    this.deps.logger.info("first block after the upgrade", { plan: trial.plan, ...seen });
    this.notifier.notify("first_block", { name: trial.plan, height: trial.height }, seen);
  }

  private rollbackContext() {
    return {
      ...this.deps,
      config: this.config,
      layout: this.layout,
      status: this.status,
      notifier: this.notifier,
    };
  }

  /**
   * A rollback that was due or under way when the last visor stopped (killed between its steps, or after
   * counting the last failure) is finished before anything runs.
   */
  private async finishRollback(): Promise<void> {
    const trial = this.status.current.trial;
    if (!trial?.backup) return;
    const limit = this.config.rollbackAfterFailures;
    const started =
      rollbackUnderWay(this.layout) || (await rolledBackReason(this.layout, { name: trial.plan })) !== null;
    if (!started && !(limit > 0 && trial.failures >= limit)) return;
    // Failures counted while visor could not tell whether a block was committed roll nothing back by themselves.
    if (!started && (await this.blindTo(trial))) return;
    const reason =
      limit > 0 && trial.failures >= limit
        ? `the new binary exited non-zero ${trial.failures} times before committing a block above height ${trial.height}`
        : "finishing a rollback that was cut short";
    throw new VisorError("ROLLED_BACK", await rollbackUpgrade(trial, reason, this.rollbackContext()));
  }

  /**
   * True, and says so, when the home's own block store (or its sign state) cannot be read: restoring the backup
   * then could lose every block the new binary committed since the upgrade, or let its validator sign twice.
   */
  private async blindTo(trial: UpgradeTrial, looked?: FirstBlockProbe): Promise<boolean> {
    const probe =
      looked ??
      new FirstBlockProbe({ ...this.deps, layout: this.layout, api: this.api, upgradeHeight: trial.height });
    if (!looked) await probe.above();
    if (!probe.blind) return false;
    this.deps.logger.error(
      `the new binary exited non-zero ${trial.failures} times, but visor cannot tell whether it committed or signed a block above height ${trial.height} (the home's own block store or its sign state cannot be read; a node API's word is not proof): not rolling back by itself; "visor rollback" restores the backup if the upgrade never committed a block`,
      { plan: trial.plan },
    );
    return true;
  }

  /**
   * The new binary exited non-zero before its first block. Answers true to start it again, once the backoff's
   * wait is over (or a stop cut it short); at the VISOR_ROLLBACK_AFTER_FAILURES-th failure rolls the upgrade
   * back (and throws), or, with no backup to restore, says why it cannot and answers false.
   */
  private async failedOnTrial(trial: UpgradeTrial, code: number, ranMs: number): Promise<boolean> {
    // It may have committed its first block after the last look: then this is an ordinary failure.
    const probe = new FirstBlockProbe({
      ...this.deps,
      layout: this.layout,
      api: this.api,
      upgradeHeight: trial.height,
    });
    const seen = await probe.above();
    if (seen) {
      this.confirmed(trial, seen);
      this.deps.logger.error("daemon exited with an error and no upgrade is due", { code });
      return false;
    }
    // The trial may have ended while the probe looked (a first block seen elsewhere): then nothing is counted.
    const current = this.status.current.trial;
    if (!current) {
      this.deps.logger.error("daemon exited with an error and no upgrade is due", { code });
      return false;
    }
    trial = current;
    const limit = this.config.rollbackAfterFailures;
    const failures = trial.failures + 1;
    this.status.update({ trial: { ...trial, failures, last_exit: code } });
    const plan = { name: trial.plan, height: trial.height };
    this.notifier.notify("failed", plan, { step: "first_block", exit_status: code, failures, limit });
    if (failures < limit) {
      const wait = this.backoff.after(ranMs);
      this.deps.logger.warn(
        `the new binary exited with an error before its first block: starting it again in ${formatGoDuration(wait)}`,
        { plan: trial.plan, code, failure: `${failures} of ${limit}`, wait: formatGoDuration(wait) },
      );
      await this.pause(wait);
      return true;
    }
    if (await this.blindTo({ ...trial, failures }, probe)) return false;
    const reason = `the new binary exited non-zero ${failures} times (last status ${code}) before committing a block above height ${trial.height}`;
    if (!trial.backup) {
      this.deps.logger.error(
        `${reason}; cannot roll back: no data backup was made before the upgrade (UNSAFE_SKIP_BACKUP=true)`,
        { plan: trial.plan },
      );
      return false;
    }
    throw new VisorError("ROLLED_BACK", await rollbackUpgrade(trial, reason, this.rollbackContext()));
  }

  /** Waits `ms`, or less when a stop is asked for meanwhile. */
  private pause(ms: number): Promise<void> {
    if (ms === 0 || this.stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** The plan in upgrade-info.json when `current` does not run it yet and its height is not skipped. */
  private pendingUpgrade(): UpgradePlan | null {
    let plan: UpgradePlan | null;
    try {
      plan = readUpgradeInfo(this.layout.upgradeInfoFile);
    } catch (e) {
      // A file being written by a binary that does not write atomically: look again on the next event or poll.
      this.deps.logger.debug("upgrade-info.json not readable yet", { err: (e as Error).message });
      return null;
    }
    if (!plan) return null;
    const running = this.layout.currentPlan();
    if (running && samePlanName(running.name, plan.name, this.config) && running.height >= plan.height)
      return null;
    if (this.skipHeights.has(plan.height)) {
      this.deps.logger.info("upgrade height is in --unsafe-skip-upgrades: not upgrading", {
        plan: plan.name,
        height: plan.height,
      });
      return null;
    }
    return plan;
  }

  private runChild(): Promise<ChildOutcome> {
    const bin = this.layout.currentBinary();
    // Cosmovisor sets the exec bit when it is missing; we also never leave it group- or world-writable.
    const mode = statSync(bin).mode & 0o777;
    if ((mode & 0o111) === 0 || (mode & 0o022) !== 0) chmodSync(bin, (mode | 0o755) & ~0o022);
    const args = this.launches++ > 0 && this.deps.restartArgs ? this.deps.restartArgs : this.args;
    this.deps.logger.info("starting daemon", { binary: bin, args: args.join(" ") });
    this.deps.metrics?.childStarts.inc();
    // VISOR_PID tells a daemon that knows it (chaind) that its upgrade halt may end the process at once.
    const env = { ...process.env, VISOR_PID: String(process.pid) };
    // Unattended (no terminal on stdin), the daemon leads a process group of its own, so that what it started
    // (chaind's CometBFT) can be killed with it: a daemon that dies or is killed without stopping its children
    // would leave them running, holding the node's ports, databases and visor's output. At a terminal it stays
    // in the terminal's group, where it can read a prompt's answer and Ctrl-C reaches it and its children.
    this.daemonGroup = !process.stdin.isTTY;
    const output = this.deps.daemonOutput;
    const child = spawn(bin, [...args], {
      stdio: output ? ["ignore", "pipe", "pipe"] : "inherit",
      env,
      detached: this.daemonGroup,
    });
    if (output) for (const s of [child.stdout, child.stderr]) s?.pipe(output, { end: false });
    const startedAt = performance.now();
    this.child = child;
    this.status.update({
      running_binary: bin,
      child_pid: child.pid ?? null,
      current_upgrade: this.layout.currentPlan()?.name ?? null,
    });
    const trial = this.status.current.trial;
    if (trial)
      this.notifier.notify(
        "restarted",
        { name: trial.plan, height: trial.height },
        { binary: bin, pid: child.pid ?? null, attempt: trial.failures + 1 },
      );
    const probe = trial
      ? new FirstBlockProbe({ ...this.deps, layout: this.layout, api: this.api, upgradeHeight: trial.height })
      : null;

    return new Promise<ChildOutcome>((resolve) => {
      let settled = false;
      let upgradeDue = false;
      const timers: NodeJS.Timeout[] = [];
      // The data folder may not exist before the daemon's first start; events need it to.
      mkdirSync(this.layout.dataDir, { recursive: true });
      const watcher = this.config.watchEvents
        ? watch(this.layout.dataDir, { depth: 0, ignoreInitial: true, awaitWriteFinish: false })
        : null;
      const prefetcher = this.config.prefetch
        ? new Prefetcher({
            ...this.deps,
            config: this.config,
            layout: this.layout,
            api: this.api,
            status: this.status,
          })
        : null;
      this.prefetcher = prefetcher;
      const check = () => {
        if (settled || upgradeDue || child.exitCode !== null) return;
        if (!this.pendingUpgrade()) return;
        upgradeDue = true;
        // The real upgrade comes first: a rehearsal still under way is stopped (and removes its copy).
        void this.rehearsals.stop();
        this.deps.logger.info("upgrade-info.json names a new upgrade: stopping the daemon");
        void this.stopChild(child);
      };
      watcher?.on("all", (_event, path) => {
        if (path.endsWith("upgrade-info.json")) check();
      });
      const confirm = async () => {
        const seen = await probe?.above();
        const open = this.status.current.trial;
        if (seen && trial && open?.plan === trial.plan) this.confirmed(trial, seen);
      };
      timers.push(
        setInterval(() => {
          check();
          if (probe && this.status.current.trial) void confirm();
          // Batch upgrades are due at a height: asked as often as the file is polled, so they are not late.
          if (existsSync(this.layout.batchFile))
            void this.batch
              .tick()
              .catch((e) =>
                this.deps.logger.warn("batch upgrade file unusable", { err: (e as Error).message }),
              );
        }, this.config.pollIntervalMs),
      );
      const lookAhead = Math.max(this.config.pollIntervalMs, 1000);
      if (prefetcher) timers.push(setInterval(() => void prefetcher.tick(), lookAhead));
      const lookAheadTick = async () => {
        await this.readiness.tick();
        this.rehearsals.tick(this.status.current.next_upgrade, (h) => this.readiness.estimatedAt(h));
      };
      void lookAheadTick();
      timers.push(setInterval(() => void lookAheadTick(), lookAhead));
      child.once("error", (e) => this.deps.logger.error("cannot start daemon", { err: e.message }));
      child.once("exit", (code, signal) => {
        settled = true;
        for (const t of timers) clearInterval(t);
        void watcher?.close();
        this.child = null;
        this.prefetcher = null;
        this.status.update({ child_pid: null });
        const status = code ?? (signal ? (SIGNAL_CODES[signal] ?? 1) : 1);
        this.deps.logger.info("daemon exited", { code: code ?? "none", signal: signal ?? "none" });
        if (this.killLeftovers(child))
          this.deps.logger.warn("the daemon left processes of its own running: killed them", {
            group: child.pid ?? 0,
          });
        if (this.stopping)
          resolve({ kind: "stopped", code: status === SIGNAL_CODES[this.stopping] ? 0 : status });
        else if (upgradeDue) resolve({ kind: "upgrade" });
        else resolve({ kind: "exit", code: status, ranMs: performance.now() - startedAt });
      });
    });
  }

  /** SIGKILL to the daemon, and to every process of its group when it leads one. */
  private killDaemon(child: ChildProcess): void {
    if (this.daemonGroup && child.pid !== undefined)
      try {
        process.kill(-child.pid, "SIGKILL");
        return;
      } catch {
        // The group has ended; the daemon itself may still be a zombie to reap.
      }
    child.kill("SIGKILL");
  }

  /**
   * Right after the daemon has exited: SIGKILL to what is left of its process group (children it did not stop).
   * Its pid cannot have been reused yet: a live group keeps its id from being given to a new process. Answers
   * whether anything was left.
   */
  private killLeftovers(child: ChildProcess): boolean {
    if (!this.daemonGroup || child.pid === undefined) return false;
    try {
      process.kill(-child.pid, "SIGKILL");
      return true;
    } catch {
      return false;
    }
  }

  /** DAEMON_SHUTDOWN_GRACE: 0 kills at once; else SIGINT, and SIGKILL when the grace runs out. */
  private async stopChild(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null) return;
    if (this.config.shutdownGraceMs === 0) {
      this.killDaemon(child);
      return;
    }
    child.kill("SIGINT");
    const t = setTimeout(() => {
      if (child.exitCode === null) {
        this.deps.logger.warn("daemon did not stop within DAEMON_SHUTDOWN_GRACE: killing it");
        this.killDaemon(child);
      }
    }, this.config.shutdownGraceMs);
    child.once("exit", () => clearTimeout(t));
  }
}
