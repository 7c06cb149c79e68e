import { type Logger, silentLogger } from "@chaind/core/logger";
import { createWinstonLogger } from "@chaind/core/winston-logger";
import { goTimeFormatter } from "../config/go-time-layout.js";
import type { VisorConfig } from "../config/visor-config.js";
import { redactUrls } from "../errors/url-redaction.js";

function redactValue(v: unknown): unknown {
  if (typeof v === "string") return redactUrls(v);
  if (v instanceof Error) return redactUrls(v.message);
  if (v === null || typeof v !== "object") return v;
  try {
    return JSON.parse(redactUrls(JSON.stringify(v)));
  } catch {
    return redactUrls(String(v));
  }
}

/** A logger whose lines name URLs without their credentials or signed-URL tokens, whatever a caller passes. */
function redactingLogger(inner: Logger): Logger {
  const ctxOf = (ctx?: Record<string, unknown>) =>
    ctx && Object.fromEntries(Object.entries(ctx).map(([k, v]) => [k, redactValue(v)]));
  return {
    error: (m, c) => inner.error(redactUrls(m), ctxOf(c)),
    warn: (m, c) => inner.warn(redactUrls(m), ctxOf(c)),
    info: (m, c) => inner.info(redactUrls(m), ctxOf(c)),
    debug: (m, c) => inner.debug(redactUrls(m), ctxOf(c)),
    child: (m) => redactingLogger(inner.child(m)),
  };
}

/**
 * winston, as COSMOVISOR_DISABLE_LOGS / COSMOVISOR_COLOR_LOGS / COSMOVISOR_TIMEFORMAT_LOGS ask (time in Go's
 * layout), or JSON lines with VISOR_LOG_FORMAT=json.
 */
export function visorLogger(
  c: Pick<VisorConfig, "disableLogs" | "colorLogs" | "timeFormatLogs" | "logFormat">,
): Logger {
  if (c.disableLogs) return silentLogger;
  const json = c.logFormat === "json";
  return redactingLogger(
    createWinstonLogger({
      level: "info",
      format: c.logFormat,
      timeFormat: goTimeFormatter(c.timeFormatLogs),
      colors: !json && c.colorLogs && process.stderr.isTTY === true,
    }).child("visor"),
  );
}
