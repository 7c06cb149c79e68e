import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { forgetSource } from "../artifacts/artifact-source.js";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";
import { editBatch } from "../upgrade/batch-feed.js";
import { installBinary } from "./install-binary.js";
import { out } from "./stdout-line.js";

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
