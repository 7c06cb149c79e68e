import type { VisorConfig } from "../config/visor-config.js";
import { VisorError } from "../errors/visor-error.js";
import { VisorLayout } from "../home/visor-layout.js";
import { lowerOwnPriority } from "../host/lower-priority.js";
import { type RehearsalOptions, rehearseUpgrade } from "../rehearsal/upgrade-rehearsal.js";
import { rehearsalJson, rehearsalText, writeLastRehearsal } from "../reporting/rehearsal-report.js";
import { visorLogger } from "../reporting/visor-logger.js";
import { out } from "./stdout-line.js";

/** A rehearsal's processes yield the CPU to the live node's (nice 10; its children inherit it). */
const REHEARSAL_NICENESS = 10;

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
