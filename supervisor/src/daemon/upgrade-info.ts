import { existsSync, readFileSync, statSync } from "node:fs";
import { VisorError } from "../errors/visor-error.js";

/** A plan as the node writes it to data/upgrade-info.json. */
export interface UpgradePlan {
  name: string;
  height: number;
  info: string;
  time?: string;
}

/**
 * Checks a parsed plan as cosmovisor does (Go decodes it into an int64 and a string): a name, a height that is a
 * JSON integer above 0 (not `true`, `[5]` or `"0x10"`), a time that is a string when present.
 */
export function validatePlan(doc: unknown, source: string): UpgradePlan {
  const p = doc as Partial<UpgradePlan> | null;
  if (!p || typeof p !== "object") throw new VisorError("UPGRADE_INFO", `${source}: expected a JSON object`);
  if (typeof p.name !== "string" || !p.name)
    throw new VisorError("UPGRADE_INFO", `${source}: upgrade name cannot be empty`);
  const height = p.height as unknown;
  if (typeof height !== "number" || !Number.isSafeInteger(height) || height <= 0)
    throw new VisorError(
      "UPGRADE_INFO",
      `${source}: height must be greater than 0, got ${JSON.stringify(p.height)}`,
    );
  if (p.time !== undefined && typeof p.time !== "string")
    throw new VisorError("UPGRADE_INFO", `${source}: time must be a string, got ${JSON.stringify(p.time)}`);
  return { name: p.name, height, info: typeof p.info === "string" ? p.info : "", time: p.time };
}

/**
 * Reads upgrade-info.json: null when absent or empty (the node may be writing it: look again shortly), the
 * plan when valid, an error naming the problem otherwise.
 */
export function readUpgradeInfo(path: string): UpgradePlan | null {
  if (!existsSync(path) || statSync(path).size === 0) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new VisorError("UPGRADE_INFO", `${path}: invalid JSON: ${(e as Error).message}`);
  }
  return validatePlan(doc, path);
}

/** Whether two plan names are the same upgrade (case-insensitive unless recasing is off, as cosmovisor). */
export function samePlanName(a: string, b: string, config: { disableRecase: boolean }): boolean {
  return config.disableRecase ? a === b : a.toLowerCase() === b.toLowerCase();
}
