import type { VisorConfig } from "../config/visor-config.js";
import { VisorLayout } from "../home/visor-layout.js";
import { statusJson, statusReport, statusText } from "../upgrade/visor-status-report.js";
import { out } from "./stdout-line.js";

/** What visor runs, what comes next and whether it is ready; plans as the node wrote them, URLs redacted. */
export function statusCommand(config: VisorConfig, form: "text" | "json"): void {
  const report = statusReport(config, new VisorLayout(config));
  out(form === "json" ? statusJson(report) : statusText(report));
}
