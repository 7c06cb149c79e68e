import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { crashPoint } from "./crash-point.js";
import type { VisorConfig } from "./visor-config.js";
import { VisorError } from "./visor-error.js";

/** The height probe's scratch folder in data/: no database's name, and left out of data backups. */
export const HEIGHT_PROBE_DIR = ".visor-height-probe";

/** Folders set aside (`<folder>.replaced-<time>`) kept per folder; older ones are removed. */
const KEEP_REPLACED = 3;

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

  /**
   * The folder name of a plan: lower-cased unless COSMOVISOR_DISABLE_RECASE, then URL path-escaped. Names that
   * could leave the upgrades folder or confuse a shell are refused.
   */
  planDirName(plan: string): string {
    if (!plan || plan.trim() !== plan)
      throw new VisorError("LAYOUT", `invalid upgrade name ${JSON.stringify(plan)}: empty or padded`);
    if ([...plan].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f))
      throw new VisorError("LAYOUT", `invalid upgrade name ${JSON.stringify(plan)}: control characters`);
    const name = this.config.disableRecase ? plan : plan.toLowerCase();
    const escaped = encodeURIComponent(name);
    if (escaped === "." || escaped === ".." || escaped.length > 255)
      throw new VisorError(
        "LAYOUT",
        `invalid upgrade name ${JSON.stringify(plan)}: not usable as a folder name`,
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
   * can see what was replaced; only the newest few per folder are kept, so repeated replacements cannot fill
   * the disk. Answers the new path.
   */
  setAside(dir: string): string {
    const stamp = new Date().toISOString().replace(/[:.]/g, "-");
    let to = `${dir}.replaced-${stamp}`;
    for (let i = 1; existsSync(to); i++) to = `${dir}.replaced-${stamp}-${i}`;
    renameSync(dir, to);
    const prefix = `${basename(dir)}.replaced-`;
    const all = readdirSync(dirname(dir))
      .filter((f) => f.startsWith(prefix))
      .sort();
    for (const old of all.slice(0, Math.max(0, all.length - KEEP_REPLACED)))
      rmSync(join(dirname(dir), old), { recursive: true, force: true });
    return to;
  }

  binaryIn(dir: string): string {
    return join(dir, "bin", this.config.name);
  }

  /** The folder `current` points at; a missing link is re-made to genesis, as cosmovisor does. */
  currentDir(): string {
    if (!existsSync(this.currentLink)) {
      if (!existsSync(this.binaryIn(this.genesisDir)))
        throw new VisorError(
          "LAYOUT",
          `no ${this.config.name} in ${join(this.genesisDir, "bin")}: run "visor init" first`,
        );
      this.switchTo(this.genesisDir);
    }
    return join(this.root, readlinkSync(this.currentLink));
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
