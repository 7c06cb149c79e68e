import type { Logger } from "@chaind/core/logger";

/** One line a component logged, level aside. */
export interface LoggedLine {
  msg: string;
  ctx?: Record<string, unknown>;
}

/** Keeps every line a component (and its children) logs, so a test can read what the node reported. */
export function recordingLogger(lines: LoggedLine[]): Logger {
  const log = (msg: string, ctx?: Record<string, unknown>) => {
    lines.push({ msg, ctx });
  };
  const logger: Logger = { error: log, warn: log, info: log, debug: log, child: () => logger };
  return logger;
}
