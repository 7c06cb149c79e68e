import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { goPathEscape } from "@chaind/core/go-path-escape";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { crashPoint } from "../host/crash-point.js";

/** The height probe's scratch folder in data/: no database's name, and left out of data backups. */
export const HEIGHT_PROBE_DIR = ".visor-height-probe";

/**
 * Folders set aside (`<folder>.replaced-<time>`) kept in all, in upgrades/ and prefetch/ together; older ones are
 * removed. In all, not per plan: a server that changes a plan's info under ever new names must not fill the disk.
 */
export const KEEP_SET_ASIDE = 3;
/** The name setAside gives: the folder's name, `.replaced-`, the time, and a counter when the time repeats. */
const SET_ASIDE_NAME = /\.replaced-(\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z)(?:-(\d+))?$/;

/**
 * Cosmovisor's folder layout under `$DAEMON_HOME/cosmovisor`: genesis/bin/<name>, upgrades/<plan>/bin/<name>,
 * and `current`, a relative symlink to the folder whose binary runs. visor adds prefetch/<plan>, artifacts
 * fetched ahead of the halt that only the halt installs.
 */
export class VisorLayout {
  readonly root: string;

  constructor(readonly config: Pick<VisorConfig, "home" | "name" | "disableRecase">) {
    this.root = join(config.home, "cosmovisor");
  }

  get genesisDir(): string {
    return join(this.root, "genesis");
  }

  get upgradesDir(): string {
    return join(this.root, "upgrades");
  }

  /** Artifacts pre-fetched for a scheduled plan, waiting for the halt to check and install them. */
  get prefetchDir(): string {
    return join(this.root, "prefetch");
  }

  /** Scratch space for a snapshot of the node's databases: beside them in data/, so tables are hard-linked. */
  get heightProbeDir(): string {
    return join(this.dataDir, HEIGHT_PROBE_DIR);
  }

  get currentLink(): string {
    return join(this.root, "current");
  }

  get dataDir(): string {
    return join(this.config.home, "data");
  }

  get upgradeInfoFile(): string {
    return join(this.dataDir, "upgrade-info.json");
  }

  get batchFile(): string {
    return join(this.dataDir, "upgrade-info.json.batch");
  }

  get statusFile(): string {
    return join(this.root, "visor-status.json");
  }

  /** The pid of the visor process holding the home's lock (see VisorHomeLock). */
  get pidFile(): string {
    return join(this.root, "visor.pid");
  }

  /** The lock of the visor process that supervises or rewrites the home (see VisorHomeLock). */
  get lockDir(): string {
    return join(this.root, "visor.lock");
  }

  /** The lock of whoever edits the batch file: the running visor's batch feed, or add-upgrade. */
  get batchLockDir(): string {
    return join(this.root, "batch.lock");
  }

  /**
   * The folder name of a plan: lower-cased unless COSMOVISOR_DISABLE_RECASE, then escaped as Go's url.PathEscape does (as cosmovisor names it). Names that
   * could leave the upgrades folder or confuse a shell are refused.
   */
  planDirName(plan: string): string {
    if (!plan || plan.trim() !== plan)
      throw new VisorError("LAYOUT", `invalid upgrade name ${JSON.stringify(plan)}: empty or padded`);
    if ([...plan].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
      throw new VisorError("LAYOUT", `invalid upgrade name ${JSON.stringify(plan)}: control characters`);
    const name = this.config.disableRecase ? plan : plan.toLowerCase();
    const escaped = goPathEscape(name);
    if (escaped === "." || escaped === ".." || escaped.length > 255)
      throw new VisorError(
        "LAYOUT",
        `invalid upgrade name ${JSON.stringify(plan)}: not usable as a folder name`,
      );
    // visor's own scratch folders (`.staging-*`, `.tmp-*`, removed at start) and set-aside folders (pruned)
    // have such names: a plan's folder must never be taken for one.
    if (escaped.startsWith(".") || escaped.includes(".replaced-"))
      throw new VisorError(
        "LAYOUT",
        `invalid upgrade name ${JSON.stringify(plan)}: a leading "." or ".replaced-" is kept for visor's own folders`,
      );
    return escaped;
  }

  upgradeDir(plan: string): string {
    return join(this.upgradesDir, this.planDirName(plan));
  }

  prefetchDirOf(plan: string): string {
    return join(this.prefetchDir, this.planDirName(plan));
  }

  /**
   * Moves a folder visor will not use out of the way, as `<folder>.replaced-<time>` beside it, so an operator
   * can see what was replaced; only the newest few set-aside folders are kept, so repeated replacements cannot
   * fill the disk. Never the folder `current` points at: the node would run whatever took its place. Answers
   * the new path.
   */
  setAside(dir: string, why: string): string {
    if (this.pointsAtCurrent(dir))
      throw new VisorError(
        "LAYOUT",
        `refusing to set aside ${dir}: current points at it, and the node would run whatever took its place (${why}); to replace that binary on purpose: visor add-upgrade ${decodeURIComponent(basename(dir))} <binary> --force`,
      );
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    let to = `${dir}.replaced-${stamp}`;
    for (let i = 1; existsSync(to); i++) to = `${dir}.replaced-${stamp}-${i}`;
    renameSync(dir, to);
    this.pruneSetAside();
    return to;
  }

  /**
   * Keeps the newest KEEP_SET_ASIDE set-aside folders of upgrades/ and prefetch/ together: by the time in their
   * names, then (two set aside in the same millisecond) by when they were renamed.
   */
  private pruneSetAside(): void {
    const found: { path: string; stamp: string; renamed: number; n: number }[] = [];
    for (const folder of [this.upgradesDir, this.prefetchDir]) {
      if (!existsSync(folder)) continue;
      for (const f of readdirSync(folder)) {
        const m = SET_ASIDE_NAME.exec(f);
        if (!m) continue;
        const path = join(folder, f);
        found.push({ path, stamp: m[1], renamed: lstatSync(path).ctimeMs, n: Number(m[2] ?? 0) });
      }
    }
    found.sort((a, b) =>
      a.stamp !== b.stamp ? (a.stamp < b.stamp ? -1 : 1) : a.renamed - b.renamed || a.n - b.n,
    );
    for (const old of found.slice(0, Math.max(0, found.length - KEEP_SET_ASIDE)))
      if (!this.pointsAtCurrent(old.path)) rmSync(old.path, { recursive: true, force: true });
  }

  binaryIn(dir: string): string {
    return join(dir, "bin", this.config.name);
  }

  /**
   * The folder `current` points at. A missing link is re-made to genesis, as cosmovisor does; a link that
   * points at a folder that does not exist is an error: visor cannot tell which binary the node's data needs,
   * and genesis could run on upgraded data.
   */
  currentDir(): string {
    if (!this.isLink(this.currentLink)) {
      if (existsSync(this.currentLink))
        throw new VisorError(
          "LAYOUT",
          `${this.currentLink} is not a symbolic link: move it away, then run visor again (a missing link is made to point at genesis)`,
        );
      if (!existsSync(this.binaryIn(this.genesisDir)))
        throw new VisorError(
          "LAYOUT",
          `no ${this.config.name} in ${join(this.genesisDir, "bin")}: run "visor init" first`,
        );
      this.switchTo(this.genesisDir);
    }
    const target = readlinkSync(this.currentLink);
    const dir = resolve(this.root, target);
    if (!existsSync(dir))
      throw new VisorError(
        "LAYOUT",
        `current points at ${target} (${dir}), which does not exist: put that binary back (a folder set aside as ${dir}.replaced-* can be renamed back), or install it with "visor add-upgrade <plan> <binary>"; re-point ${this.currentLink} at genesis only if the node's data was never upgraded`,
      );
    return dir;
  }

  /** Whether `current` points at `dir` (whether or not it exists). */
  pointsAtCurrent(dir: string): boolean {
    let target: string;
    try {
      target = resolve(this.root, readlinkSync(this.currentLink));
    } catch {
      return false;
    }
    if (target === resolve(dir)) return true;
    try {
      return realpathSync(target) === realpathSync(dir);
    } catch {
      return false;
    }
  }

  currentBinary(): string {
    return this.binaryIn(this.currentDir());
  }

  /** The plan `current` runs, from the marker upgrades/<plan>/upgrade-info.json; null for genesis. */
  currentPlan(): { name: string; height: number } | null {
    const marker = join(this.currentDir(), "upgrade-info.json");
    if (!existsSync(marker)) return null;
    try {
      return JSON.parse(readFileSync(marker, "utf8"));
    } catch {
      return null;
    }
  }

  /** Points `current` at `dir` atomically: a new relative link is made beside the old one and renamed over it. */
  switchTo(dir: string): void {
    mkdirSync(this.root, { recursive: true });
    // A link left by a visor killed between the two steps is stale: only the rename makes a switch.
    for (const f of readdirSync(this.root))
      if (f.startsWith("current.new-")) rmSync(join(this.root, f), { force: true });
    const tmp = `${this.currentLink}.new-${process.pid}`;
    symlinkSync(relative(this.root, dir), tmp);
    crashPoint("switch");
    renameSync(tmp, this.currentLink);
  }

  isLink(path: string): boolean {
    try {
      return lstatSync(path).isSymbolicLink();
    } catch {
      return false;
    }
  }
}
