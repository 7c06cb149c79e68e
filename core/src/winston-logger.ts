import winston from "winston";
import type { LogFormat, Logger, LogLevel } from "./logger.js";

export interface WinstonLoggerOpts {
  level: LogLevel;
  format: LogFormat;
  /** Per-module overrides, e.g. `{ store: "debug" }` from `--log_level store:debug,*:info`. */
  moduleLevels?: Record<string, LogLevel>;
  /** Where lines go; stderr by default so stdout stays free for command output. */
  stream?: NodeJS.WritableStream;
  /** Time format for plain lines: an ISO timestamp, none, or the caller's clock (visor renders Go's layouts). */
  timeFormat?: "iso" | "none" | ((d: Date) => string);
  colors?: boolean;
}

const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

function plainValue(v: unknown): string {
  if (typeof v === "string") return /\s/.test(v) || v === "" ? JSON.stringify(v) : v;
  if (v instanceof Error) return JSON.stringify(v.message);
  return typeof v === "object" && v !== null ? JSON.stringify(v) : String(v);
}

/** Values JSON has no form for, as a log reader wants them: bigints as decimal strings, errors as their message. */
function jsonValue(_key: string, v: unknown): unknown {
  if (typeof v === "bigint") return v.toString();
  if (v instanceof Error) return v.message;
  return v;
}

/** Parses `info`, `debug` or `store:debug,*:info` into a default level and module overrides. */
export function parseLogLevel(spec: string): { level: LogLevel; moduleLevels: Record<string, LogLevel> } {
  let level: LogLevel = "info";
  const moduleLevels: Record<string, LogLevel> = {};
  for (const part of spec
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [mod, lvl] = part.includes(":") ? part.split(":", 2) : ["*", part];
    if (!(lvl in ORDER))
      throw new Error(`invalid log level "${lvl}": expected one of error, warn, info, debug`);
    if (mod === "*") level = lvl as LogLevel;
    else moduleLevels[mod] = lvl as LogLevel;
  }
  return { level, moduleLevels };
}

/** zerolog's console labels, which Cosmos nodes and cosmovisor print, so log filters written for them match. */
const LEVEL_LABELS: Record<LogLevel, string> = { debug: "DBG", info: "INF", warn: "WRN", error: "ERR" };

export function createWinstonLogger(opts: WinstonLoggerOpts): Logger {
  const timeFormat = opts.timeFormat ?? "iso";
  const lineFormat =
    opts.format === "json"
      ? winston.format.printf((info) => {
          // zerolog's fields, as Cosmos nodes and cosmovisor write JSON lines: level, module, time, message.
          const { level, message, module, ...rest } = info as Record<string, unknown>;
          return JSON.stringify(
            { level, ...(module ? { module } : {}), time: new Date().toISOString(), ...rest, message },
            jsonValue,
          );
        })
      : winston.format.printf((info) => {
          const { level, message, module, timestamp: _t, ...rest } = info as Record<string, unknown>;
          const time =
            timeFormat === "none"
              ? ""
              : typeof timeFormat === "function"
                ? `${timeFormat(new Date())} `
                : `${new Date().toISOString()} `;
          const lvl = LEVEL_LABELS[level as LogLevel];
          const mod = module ? ` module=${module}` : "";
          const kv = Object.entries(rest)
            .filter(([k]) => typeof k === "string")
            .map(([k, v]) => ` ${k}=${plainValue(v)}`)
            .join("");
          const line = `${time}${lvl} ${message}${mod}${kv}`;
          return opts.colors ? colorize(String(level), line) : line;
        });
  const base = winston.createLogger({
    level: "debug",
    format: lineFormat,
    transports: [new winston.transports.Stream({ stream: opts.stream ?? process.stderr })],
  });
  const make = (module: string | undefined): Logger => {
    const threshold = ORDER[(module && opts.moduleLevels?.[module]) || opts.level];
    const emit = (lvl: LogLevel, msg: string, ctx?: Record<string, unknown>) => {
      if (ORDER[lvl] > threshold) return;
      base.log({ level: lvl, message: msg, ...(module ? { module } : {}), ...ctx });
    };
    return {
      error: (m, c) => emit("error", m, c),
      warn: (m, c) => emit("warn", m, c),
      info: (m, c) => emit("info", m, c),
      debug: (m, c) => emit("debug", m, c),
      child: (m) => make(m),
    };
  };
  return make(undefined);
}

function colorize(level: string, line: string): string {
  const code = level === "error" ? 31 : level === "warn" ? 33 : level === "debug" ? 90 : 32;
  return `\u001b[${code}m${line}\u001b[0m`;
}
