import { type Logger, silentLogger } from "../../node/src/logging/logger.js";
import { createWinstonLogger } from "../../node/src/logging/winston-logger.js";
import type { VisorConfig } from "./visor-config.js";

/** winston, as COSMOVISOR_DISABLE_LOGS / COSMOVISOR_COLOR_LOGS / COSMOVISOR_TIMEFORMAT_LOGS ask. */
export function visorLogger(c: Pick<VisorConfig, "disableLogs" | "colorLogs" | "timeFormatLogs">): Logger {
  if (c.disableLogs) return silentLogger;
  return createWinstonLogger({
    level: "info",
    format: "plain",
    timeFormat: c.timeFormatLogs === "kitchen" ? "kitchen" : "iso",
    colors: c.colorLogs && process.stderr.isTTY === true,
  }).child("visor");
}
