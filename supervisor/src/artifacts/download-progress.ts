import type { Logger } from "@chaind/core/logger";

type OnProgress = (received: number, total: number | null) => void;

const MB = 1024 * 1024;

/** One line of the bar: `[#######.............]  35%  12.0/34.3 MB  8.1 MB/s`. */
function progressLine(received: number, total: number | null, elapsedMs: number, width = 30): string {
  const rate = elapsedMs > 0 ? received / MB / (elapsedMs / 1000) : 0;
  const speed = `${rate.toFixed(1)} MB/s`;
  if (!total) return `${(received / MB).toFixed(1)} MB  ${speed}`;
  const share = Math.min(received / total, 1);
  const filled = Math.round(share * width);
  const bar = `[${"#".repeat(filled)}${".".repeat(width - filled)}]`;
  const pct = `${Math.floor(share * 100)}%`.padStart(4);
  return `${bar} ${pct}  ${(received / MB).toFixed(1)}/${(total / MB).toFixed(1)} MB  ${speed}`;
}

/**
 * Download progress for an operator: a bar redrawn in place when visor's stderr is a terminal, and a log line
 * a second otherwise (a log file or journald gets no carriage returns).
 */
export function downloadProgress(
  out: NodeJS.WriteStream,
  deps: { logger: Logger; quiet: boolean; onBytes?: (received: number) => void },
): OnProgress {
  const started = performance.now();
  let last = 0;
  const tty = out.isTTY === true && !deps.quiet;
  return (received, total) => {
    deps.onBytes?.(received);
    const done = total !== null && received >= total;
    const now = performance.now();
    if (now - last < (tty ? 100 : 1000) && !done) return;
    last = now;
    if (tty)
      out.write(`\r\x1b[2Kdownloading ${progressLine(received, total, now - started)}${done ? "\n" : ""}`);
    else deps.logger.info("downloading", { bytes: received, total: total ?? "unknown" });
  };
}
