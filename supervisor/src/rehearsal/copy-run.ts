import { join } from "node:path";
import { nodeListenAddresses } from "../config/node-listen-addresses.js";
import type { VisorConfig } from "../config/visor-config.js";
import { genesisChainId } from "../daemon/genesis-chain-id.js";
import { RestNodeQuery } from "../daemon/node-query-rest.js";
import type { UpgradePlan } from "../daemon/upgrade-info.js";
import { VisorLayout } from "../home/visor-layout.js";
import { lackOfSpace } from "../host/disk-space.js";
import type { RehearsalReport, RehearsalStep } from "../reporting/rehearsal-report.js";
import { VisorRunner } from "../run/visor-runner.js";
import type { RehearsalLog } from "./rehearsal-log.js";
import type { ResourcePeaks } from "./resource-peaks.js";
import { testnetOperator } from "./testnet-operator.js";

/** CometBFT's limit on a chain id. */
const MAX_CHAIN_ID = 50;

export interface RunState {
  log: RehearsalLog;
  peaks: ResourcePeaks;
  steps: RehearsalStep[];
  /** When the new binary began the plan's handler (from its log). */
  at: { applying?: number };
  report: (failure: RehearsalReport["failure"], extra?: Partial<RehearsalReport>) => RehearsalReport;
  fail: (step: RehearsalStep["step"], reason: string) => NonNullable<RehearsalReport["failure"]>;
  interrupted: { by: NodeJS.Signals | null };
}

/** When each moment of the copy's run came (performance.now()), as far as it got. */
interface Moments {
  began: number;
  /** The copy's visor: the halt seen, `current` switched, the new binary started. */
  detected?: number;
  switched?: number;
  restarted?: number;
  /** Heights the new binary committed: the upgrade block, the one after it. */
  upgradeBlock?: number;
  firstBlock?: number;
}

const RUNNER_EVENTS = { detected: "detected", switched: "switched", restarted: "restarted" } as const;

/**
 * The copy under a visor of its own (the live settings, but for what must not act outside the copy), from its
 * conversion to `blocks` blocks of the new binary; each moment timed into the report's steps.
 */
export async function runCopy(
  live: VisorConfig,
  home: string,
  plan: UpgradePlan,
  opts: { blocks: number; timeoutMs: number },
  s: RunState,
): Promise<RehearsalReport> {
  const listen = nodeListenAddresses(home);
  const config: VisorConfig = {
    ...live,
    home,
    dataBackupDir: home,
    grpcAddress: listen.grpc,
    restAddress: listen.rest,
    rpcAddress: listen.rpc,
    // The operator's script may act outside the home (it runs at the real halt only); so would the copy's
    // notifications and metrics.
    customPreUpgrade: "",
    notifyCommand: "",
    metricsAddress: "",
    restartDelayMs: 0,
    restartAfterUpgrade: true,
    rollbackAfterFailures: 0,
    prefetch: false,
    // The copy's own plan must not start a rehearsal of the copy.
    rehearseBeforeMs: 0,
  };
  const rest = new RestNodeQuery(listen.rest);
  const genesis = join(home, "config", "genesis.json");
  const chainId = `rehearsal-${genesisChainId(genesis)}`.slice(0, MAX_CHAIN_ID);
  const convert = [
    "in-place-testnet",
    chainId,
    testnetOperator(genesis),
    "--trigger-testnet-upgrade",
    plan.name,
  ];
  const when: Moments = { began: performance.now() };
  const runner = new VisorRunner(
    config,
    new VisorLayout(config),
    [...convert, "--skip-confirmation", "--home", home],
    {
      logger: s.log.logger(),
      metrics: null,
      daemonOutput: s.log,
      restartArgs: ["start", "--home", home],
      onEvent: (e) => {
        const moment = RUNNER_EVENTS[e.event as keyof typeof RUNNER_EVENTS];
        if (moment) when[moment] ??= performance.now();
      },
    },
  );
  let exited: { code: number } | { error: Error } | null = null;
  const running = runner.run().then(
    (code) => {
      exited = { code };
    },
    (error: Error) => {
      exited = { error };
    },
  );
  let failure: RehearsalReport["failure"] = null;
  let blocks = 0;
  const versions: RehearsalReport["module_versions"] = { before: null, after: null };
  for (;;) {
    await new Promise((r) => setTimeout(r, 250));
    s.peaks.sample();
    const reached = stepReached(when, s.at);
    if (s.interrupted.by) {
      failure = s.fail(reached, `stopped by ${s.interrupted.by}`);
      break;
    }
    const short = lackOfSpace(home, 0);
    if (short) {
      failure = s.fail(reached, `stopped so the live node's disk does not fill: ${short}`);
      break;
    }
    const end = exited as { code: number } | { error: Error } | null;
    if (end) {
      failure = s.fail(
        reached,
        "error" in end
          ? end.error.message
          : `${when.restarted ? `the new binary exited with status ${end.code} before committing ${opts.blocks} blocks` : `the running binary exited with status ${end.code} before the upgrade height`}${lastDaemonError(s.log.lastLines)}`,
      );
      break;
    }
    if (performance.now() - when.began > opts.timeoutMs) {
      failure = s.fail(
        reached,
        `the new binary made no ${opts.blocks} blocks within ${Math.round(opts.timeoutMs / 1000)} s`,
      );
      break;
    }
    if (!when.restarted) continue;
    // Committed heights only: a node can store the upgrade block before its handler has run (or failed).
    const applied = await rest.appliedPlan(plan.name).catch(() => null);
    if (!applied?.height) continue;
    const upgradeHeight = applied.height;
    when.upgradeBlock ??= performance.now();
    const committed = applied.stateHeight ?? (await rest.height().catch(() => 0));
    if (committed > upgradeHeight) when.firstBlock ??= performance.now();
    blocks = Math.max(0, committed - upgradeHeight + 1);
    if (blocks >= opts.blocks) {
      // The state at the halt, as the new binary reads it back, and the state its handler left.
      versions.before = await rest.moduleVersions(upgradeHeight - 1).catch(() => null);
      versions.after = await rest.moduleVersions().catch(() => null);
      break;
    }
  }
  runner.stop("SIGTERM");
  await running;
  // A log line can arrive after the poll that saw its block (a loaded machine): never a negative step.
  const span = (from: number | undefined, to: number | undefined) =>
    from !== undefined && to !== undefined ? Math.max(0, Math.round(to - from)) : null;
  s.steps.push(
    { step: "run_to_halt", ms: span(when.began, when.detected), note: "conversion, then the old binary" },
    { step: "switch", ms: span(when.detected, when.switched), note: "backup, install, switch of current" },
    { step: "pre_upgrade", ms: span(when.switched, when.restarted) },
    { step: "start_new_binary", ms: span(when.restarted, s.at.applying) },
    {
      step: "handler",
      ms: span(s.at.applying, when.upgradeBlock),
      note: "until the upgrade block is committed",
    },
    { step: "first_block", ms: span(when.upgradeBlock, when.firstBlock), note: "the next block after it" },
  );
  return s.report(failure, { module_versions: versions, blocks_after_upgrade: blocks });
}

/** The daemon's last error line (not one of the copy's visor), to say why it exited. */
function lastDaemonError(lines: string[]): string {
  const line = lines.findLast((l) => !/^(ERR|WRN|INF) \[/.test(l) && /\b(ERR|Error:|panic)/.test(l));
  return line ? `: ${line.replace(/^.*?\b(ERR|Error:|panic:?)\s*/, "")}` : "";
}

/** The step a failure happened in: the first the copy had not finished. */
function stepReached(when: Moments, at: RunState["at"]): RehearsalStep["step"] {
  if (!when.detected) return "run_to_halt";
  if (!when.switched) return "switch";
  if (!when.restarted) return "pre_upgrade";
  if (!at.applying) return "start_new_binary";
  if (!when.upgradeBlock) return "handler";
  return "first_block";
}
