import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import type { Logger } from "../../node/src/logging/logger.js";
import type { NodeApi } from "./node-api.js";
import { type UpgradePlan, validatePlan } from "./upgrade-info.js";
import { VisorError } from "./visor-error.js";
import type { VisorLayout } from "./visor-layout.js";

export function readBatch(path: string): UpgradePlan[] {
  if (!existsSync(path)) return [];
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new VisorError("UPGRADE_INFO", `${path}: invalid JSON: ${(e as Error).message}`);
  }
  if (!Array.isArray(doc)) throw new VisorError("UPGRADE_INFO", `${path}: expected a JSON array of plans`);
  return doc.map((p, i) => validatePlan(p, `${path}[${i}]`)).sort((a, b) => a.height - b.height);
}

export function writeJsonAtomic(path: string, value: unknown): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, path);
}

/**
 * Batch upgrades: plans queued in upgrade-info.json.batch (sorted by height) are written one at a time into
 * upgrade-info.json once the node, asked over its RPC, is one block short of the plan's height, which starts
 * the usual upgrade.
 */
export async function feedBatch(layout: VisorLayout, api: NodeApi, deps: { logger: Logger }): Promise<void> {
  const batch = readBatch(layout.batchFile);
  if (batch.length === 0) return;
  const height = await api.height().catch(() => null);
  if (height === null || height < batch[0].height - 1) return;
  const [next, ...rest] = batch;
  writeJsonAtomic(layout.upgradeInfoFile, {
    name: next.name,
    time: "0001-01-01T00:00:00Z",
    height: next.height,
    info: next.info,
  });
  if (rest.length) writeJsonAtomic(layout.batchFile, rest);
  else rmSync(layout.batchFile, { force: true });
  deps.logger.info("batch upgrade due", { plan: next.name, height: next.height, node_height: height });
}
