import type { VisorConfig } from "../config/visor-config.js";
import { VisorHomeLock } from "../home/visor-home-lock.js";
import { VisorLayout } from "../home/visor-layout.js";
import { visorLogger } from "../reporting/visor-logger.js";
import { VisorMetrics } from "../reporting/visor-metrics.js";
import { VisorRunner } from "../run/visor-runner.js";

/** `visor run <daemon args...>`: everything after `run` belongs to the daemon, but --cosmovisor-config. */
export async function runCommand(config: VisorConfig, args: string[]): Promise<number> {
  const logger = visorLogger(config);
  const layout = new VisorLayout(config);
  // Before anything else (the metrics listener, the clean-up of staging folders, the orphaned daemon).
  const lock = await VisorHomeLock.take(layout, "not starting a second visor on it");
  try {
    const metrics = config.metricsAddress ? new VisorMetrics() : null;
    const server = metrics ? await metrics.listen(config.metricsAddress, { logger }) : null;
    try {
      return await new VisorRunner(config, layout, args, { logger, metrics }).run();
    } finally {
      await server?.close();
    }
  } finally {
    await lock.release();
  }
}
