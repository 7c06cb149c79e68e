/** Structured logger injected into every component; `child` scopes lines to a module. */
export interface Logger {
  error(msg: string, ctx?: Record<string, unknown>): void;
  warn(msg: string, ctx?: Record<string, unknown>): void;
  info(msg: string, ctx?: Record<string, unknown>): void;
  debug(msg: string, ctx?: Record<string, unknown>): void;
  child(module: string): Logger;
}

export type LogLevel = "error" | "warn" | "info" | "debug";
export type LogFormat = "plain" | "json";

/** A logger that drops everything, for library callers and tests that do not care. */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child() {
    return silentLogger;
  },
};
