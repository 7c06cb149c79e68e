import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { packageVersion } from "@chaind/core/package-version";
import { execa } from "execa";
import { forgetSource } from "../artifacts/artifact-source.js";
import { downloadProgress } from "../artifacts/download-progress.js";
import { stageUpgradeArtifact } from "../artifacts/upgrade-binary.js";
import { describeConfig, renderConfigToml } from "../config/cosmovisor-config-file.js";
import type { VisorConfig } from "../config/visor-config.js";
import { checkBinaryRuns } from "../daemon/binary-runs-check.js";
import { NodeApi } from "../daemon/node-api.js";
import { redactUrls } from "../errors/url-redaction.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorHomeLock } from "../home/visor-home-lock.js";
import { VisorLayout } from "../home/visor-layout.js";
import { lowerOwnPriority } from "../host/lower-priority.js";
import { type RehearsalOptions, rehearseUpgrade } from "../rehearsal/upgrade-rehearsal.js";
import { rehearsalJson, rehearsalText, writeLastRehearsal } from "../reporting/rehearsal-report.js";
import { UpgradeNotifier } from "../reporting/upgrade-notifier.js";
import { visorLogger } from "../reporting/visor-logger.js";
import { daemonMayRun } from "../run/orphaned-daemon.js";
import { editBatch } from "../upgrade/batch-feed.js";
import { checkReadiness } from "../upgrade/upgrade-readiness.js";
import { rollbackUpgrade } from "../upgrade/upgrade-rollback.js";
import { StatusFile } from "../upgrade/visor-status.js";
import { statusJson, statusReport, statusText } from "../upgrade/visor-status-report.js";

const out = (s: string) => process.stdout.write(s.endsWith("\n") ? s : `${s}\n`);

/** A rehearsal's processes yield the CPU to the live node's (nice 10; its children inherit it). */
const REHEARSAL_NICENESS = 10;

/** The binary the operator named: a file that exists, else a one-line error. */
function givenBinary(src: string): string {
  const path = resolve(src);
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new VisorError("BINARY_MISSING", `no such file: ${path}`);
  if (!st.isFile()) throw new VisorError("BINARY_MISSING", `${path} is not a file`);
  return path;
}

/**
 * Copies a binary into a folder's bin/, with what a chaind release keeps beside it when there: the Swagger UI
 * files, and the V8 code cache the release shipped (`<binary>.code-cache`, which its launcher takes only for the
 * program it was made from; one left from a binary installed there before is removed). The copy must run
 * (`version`) where it lands, or nothing is installed: a launcher that only works beside its own files would
 * otherwise be found out at the halt.
 */
async function installBinary(src: string, dir: string, name: string): Promise<string> {
  const path = givenBinary(src);
  const made = !existsSync(dir);
  mkdirSync(join(dir, "bin"), { recursive: true });
  const dest = join(dir, "bin", name);
  // Copied beside it, then renamed over it: the binary is the old one or the new one, never half of one. Under
  // its own name and as deep in the folder as it will be, so it runs as it will (Node reads the extension).
  const staging = join(dir, `.new-${process.pid}`);
  const tmp = join(staging, "bin", name);
  try {
    mkdirSync(dirname(tmp), { recursive: true });
    copyFileSync(path, tmp);
    chmodSync(tmp, 0o755);
    await checkBinaryRuns(tmp, src);
    renameSync(tmp, dest);
  } catch (e) {
    // A folder made for nothing would read as an upgrade folder without its binary.
    if (made) rmSync(dir, { recursive: true, force: true });
    throw e;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const assets = join(dirname(path), "swagger-ui");
  if (existsSync(assets)) cpSync(assets, join(dir, "bin", "swagger-ui"), { recursive: true });
  rmSync(`${dest}.code-cache`, { force: true });
  if (trustedCodeCache(`${path}.code-cache`, path)) {
    const cacheTmp = `${dest}.code-cache.new-${process.pid}`;
    try {
      copyFileSync(`${path}.code-cache`, cacheTmp);
      chmodSync(cacheTmp, 0o644);
      renameSync(cacheTmp, `${dest}.code-cache`);
    } finally {
      rmSync(cacheTmp, { force: true });
    }
  }
  return dest;
}

/**
 * A code cache is code the node runs: copied only under the launcher's own rule, from a plain file owned by this
 * user or by the binary's owner that no one else may write. Else (one another user left beside a binary in /tmp)
 * the copy would belong to this user and pass that rule; the node then builds its own cache on its first run.
 */
function trustedCodeCache(cache: string, binary: string): boolean {
  const st = lstatSync(cache, { throwIfNoEntry: false });
  if (!st?.isFile() || (st.mode & 0o022) !== 0) return false;
  return st.uid === process.getuid?.() || st.uid === statSync(binary).uid;
}

/**
 * `init <path>`: the genesis binary, the current link, and `cosmovisor/config.toml` with the settings in
 * effect, as cosmovisor 1.6+ writes it. An existing config.toml is kept (cosmovisor asks before it overwrites;
 * visor never asks). `config` holds the settings as configured: addresses visor reads from the node's own
 * files stay unset in the file, so they keep following those files.
 */
export async function initCommand(config: VisorConfig, path: string): Promise<void> {
  const layout = new VisorLayout(config);
  const bin = layout.binaryIn(layout.genesisDir);
  givenBinary(path);
  if (existsSync(bin)) out(`genesis binary already installed at ${bin}; leaving it`);
  else out(`installed genesis binary at ${await installBinary(path, layout.genesisDir, config.name)}`);
  // A link that points nowhere is not missing: currentDir says so instead of re-pointing it at genesis.
  if (!layout.isLink(layout.currentLink)) layout.switchTo(layout.genesisDir);
  out(`current -> ${layout.currentDir()}`);
  const file = join(layout.root, "config.toml");
  if (existsSync(file)) out(`${file} already exists; leaving it`);
  else {
    // Owner-only: settings may name URLs with credentials (visor redacts them wherever it prints them).
    writeFileAtomic(file, renderConfigToml(config), { mode: 0o600 });
    out(`wrote ${file}`);
  }
}

/**
 * Like cosmovisor, visor's own version needs no configured home: `--cosmovisor-only` prints it alone, and the
 * text form prints it before the settings are read and the daemon asked.
 */
export async function versionCommand(
  loadConfig: () => VisorConfig,
  opts: { json: boolean; visorOnly: boolean },
): Promise<void> {
  const visor = packageVersion(import.meta.url);
  if (!opts.json) out(`visor version: ${visor}`);
  if (opts.visorOnly) {
    if (opts.json) out(JSON.stringify({ cosmovisor_version: visor }));
    return;
  }
  const config = loadConfig();
  const r = await execa(new VisorLayout(config).currentBinary(), ["version", "--long", "--output", "json"], {
    reject: false,
  });
  if (r.exitCode !== 0)
    throw new VisorError("BINARY_MISSING", `${config.name} version failed: ${r.stderr.trim()}`);
  if (opts.json) {
    let app: unknown = r.stdout.trim();
    try {
      app = JSON.parse(r.stdout);
    } catch {
      // Not every daemon prints JSON; its text is passed on as is.
    }
    out(JSON.stringify({ cosmovisor_version: visor, app_version: app }));
  } else out(r.stdout.trim());
}

/** `config`: the settings as `cosmovisor config` prints them, or (`toml`) the config.toml init would write. */
export function configCommand(config: VisorConfig, form: "text" | "toml"): void {
  out(redactUrls(form === "toml" ? renderConfigToml(config) : describeConfig(config)));
}

/**
 * `add-upgrade <name> <path>`: installs an operator-provided binary for a plan. With --upgrade-height the
 * upgrade is queued in the batch file and happens when the node reaches that height (cosmovisor applies it at
 * once instead, see cosmos-sdk#19227).
 */
export async function addUpgradeCommand(
  config: VisorConfig,
  name: string,
  path: string,
  opts: { force: boolean; height?: number },
): Promise<void> {
  const layout = new VisorLayout(config);
  const dir = layout.upgradeDir(name);
  if (existsSync(layout.binaryIn(dir)) && !opts.force)
    throw new VisorError(
      "LAYOUT",
      `upgrade binary already exists at ${layout.binaryIn(dir)}; use --force to replace it`,
    );
  out(`installed ${name} binary at ${await installBinary(path, dir, config.name)}`);
  // After the binary is in place: cut short in between, the record names other bytes than these, and a binary
  // its record does not name is the operator's (installedByVisor). Removed first, a visor-fetched binary left
  // in place would lose the record the halt checks it against.
  forgetSource(dir);
  if (opts.height !== undefined) await queueUpgrade(layout, name, opts.height);
}

async function queueUpgrade(layout: VisorLayout, name: string, height: number): Promise<void> {
  if (!Number.isSafeInteger(height) || height <= 0)
    throw new VisorError("UPGRADE_INFO", `invalid upgrade height ${height}`);
  mkdirSync(layout.dataDir, { recursive: true });
  await editBatch(layout, (plans) =>
    [...plans.filter((p) => p.name !== name), { name, height, info: "" }].sort((a, b) => a.height - b.height),
  );
  out(`scheduled ${name} at height ${height} (${layout.batchFile})`);
}

/** `add-batch-upgrade --upgrade-file <csv> | --upgrade-list name:path:height,...` */
export async function addBatchUpgradeCommand(
  config: VisorConfig,
  opts: { file?: string; list?: string },
): Promise<void> {
  let entries: string[][];
  if (opts.file) {
    entries = readFileSync(opts.file, "utf8")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"))
      .map((l) => l.split(",").map((s) => s.trim()));
  } else if (opts.list) {
    entries = opts.list.split(",").map((e) => e.split(":").map((s) => s.trim()));
  } else throw new VisorError("CONFIG", "give --upgrade-file or --upgrade-list");
  for (const e of entries) {
    if (e.length !== 3 || !/^\d+$/.test(e[2]))
      throw new VisorError(
        "UPGRADE_INFO",
        `invalid batch entry ${JSON.stringify(e.join(":"))}: use name,path,height`,
      );
    await addUpgradeCommand(config, e[0], e[1], { force: true, height: Number(e[2]) });
  }
}

/**
 * `prepare-upgrade`: fetches the artifact of the plan the node's API names now. Like a pre-fetch, it is staged in
 * prefetch/<plan> and installed only at the halt, if upgrade-info.json names the same artifact (cosmovisor
 * installs into upgrades/<plan>): a plan learned over the network never decides which binary runs.
 */
export async function prepareUpgradeCommand(config: VisorConfig): Promise<void> {
  const logger = visorLogger(config);
  const api = NodeApi.forHome(config, { logger });
  const plan = await api.currentPlan().finally(() => api.close());
  if (!plan) {
    out("No active upgrade plan found");
    return;
  }
  const layout = new VisorLayout(config);
  const got = await stageUpgradeArtifact(plan, layout, config, {
    logger,
    onProgress: downloadProgress(process.stderr, { logger, quiet: config.disableLogs }),
  });
  const at = `upgrade ${plan.name} at height ${plan.height}`;
  out(
    got.path === layout.binaryIn(layout.upgradeDir(plan.name))
      ? `${at}: binary ready at ${got.path}`
      : `${at}: artifact verified and staged at ${got.path}; installed at the halt if upgrade-info.json names it`,
  );
  // The rest of what the halt needs (the data backup's room, above all): found out now, not at the halt.
  const { problems } = await checkReadiness(plan, { config, layout, logger });
  for (const p of problems) logger.error(`${at} will fail at the halt: ${p}`);
  if (problems.length)
    throw new VisorError(
      "BINARY_MISSING",
      `${at} is not ready: ${problems.length === 1 ? problems[0] : `${problems.length} problems (above)`}`,
    );
}

/** data/upgrade-info.json byte for byte, as the node wrote it (cosmovisor does the same); an error when absent. */
export function showUpgradeInfoCommand(config: VisorConfig): void {
  const path = new VisorLayout(config).upgradeInfoFile;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (e as Error).message;
    throw new VisorError("UPGRADE_INFO", `failed to read upgrade-info.json: ${path}: ${why}`);
  }
  process.stdout.write(bytes);
}

/** What visor runs, what comes next and whether it is ready; plans as the node wrote them, URLs redacted. */
export function statusCommand(config: VisorConfig, form: "text" | "json"): void {
  const report = statusReport(config, new VisorLayout(config));
  out(form === "json" ? statusJson(report) : statusText(report));
}

/**
 * `rollback`: what visor does by itself after VISOR_ROLLBACK_AFTER_FAILURES failures, by hand. Only an upgrade
 * whose new binary has committed no block above the upgrade height (still on trial), and only while no daemon
 * runs on the home.
 */
export async function rollbackCommand(config: VisorConfig): Promise<void> {
  const layout = new VisorLayout(config);
  // Held throughout: a visor started meanwhile must not run a daemon on data being restored.
  const lock = await VisorHomeLock.take(layout, "stop it first, then run visor rollback");
  try {
    await rollBack(config, layout);
  } finally {
    await lock.release();
  }
}

async function rollBack(config: VisorConfig, layout: VisorLayout): Promise<void> {
  const status = new StatusFile(layout.statusFile);
  const pid = daemonMayRun(status.previous);
  if (pid !== null)
    throw new VisorError(
      "ROLLBACK",
      `the daemon (pid ${pid}) still runs on ${config.home}: stop visor first, then run visor rollback`,
    );
  const trial = status.current.trial;
  if (!trial) {
    const last = status.current.last_upgrade;
    throw new VisorError(
      "ROLLBACK",
      last?.result === "ok"
        ? `nothing to roll back: upgrade ${last.plan} has committed a block above height ${last.height}; restoring its backup now would drop those blocks`
        : last?.result === "rolled_back"
          ? `nothing to roll back: upgrade ${last.plan} was already rolled back`
          : "nothing to roll back: visor has not switched to a new binary that is still waiting for its first block",
    );
  }
  const logger = visorLogger(config);
  const notifier = new UpgradeNotifier(
    { command: config.notifyCommand, timeoutMs: config.notifyTimeoutMs },
    { logger },
  );
  try {
    out(
      await rollbackUpgrade(trial, "rolled back by hand (visor rollback)", {
        config,
        layout,
        status,
        notifier,
        metrics: null,
        logger,
      }),
    );
  } finally {
    await notifier.drain();
  }
}

/**
 * `rehearse [plan]`: the upgrade run ahead on a copy of the live home (see rehearseUpgrade), at a low CPU
 * priority so the live node keeps its pace. Prints the report; a failed rehearsal is an error (exit 1), one that
 * could not run exits 2.
 */
export async function rehearseCommand(
  config: VisorConfig,
  opts: RehearsalOptions & { form: "text" | "json" },
): Promise<void> {
  lowerOwnPriority(REHEARSAL_NICENESS);
  const layout = new VisorLayout(config);
  const report = await rehearseUpgrade(config, opts, { logger: visorLogger(config) });
  writeLastRehearsal(layout, report);
  out(opts.form === "json" ? rehearsalJson(report) : rehearsalText(report));
  if (report.failure)
    throw new VisorError(
      "REHEARSAL_FAILED",
      `rehearsal of upgrade "${report.plan.name}" failed at ${report.failure.step}: ${report.failure.reason}`,
    );
}
