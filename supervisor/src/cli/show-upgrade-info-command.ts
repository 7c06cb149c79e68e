import { readFileSync } from "node:fs";
import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";

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
