import { execa } from "execa";
import { VisorError } from "../errors/visor-error.js";

/** Long enough for a Node daemon's cold start on a loaded machine; a daemon that hangs on `version` is broken. */
const VERSION_TIMEOUT_MS = 30_000;
/** A version is a line or a JSON object; more is a binary doing something else (a node starting up). */
const VERSION_MAX_BYTES = 64 * 1024;
/** The part of the daemon's complaint the one-line error keeps. */
const SHOWN_CHARS = 300;

/** The line of a failed run that says why: a Node or Go error line when there is one, else the first. */
function telling(output: string): string {
  const lines = output
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);
  const line = lines.find((l) => /^(\w+ )?\w*(Error|error)\b|^panic:|^Error:/.test(l)) ?? lines[0] ?? "";
  return line.length > SHOWN_CHARS ? `${line.slice(0, SHOWN_CHARS)}...` : line;
}

/**
 * Runs `<binary> version` (bounded in time and output) and throws, in one line, when it does not run: a
 * launcher that only works where it was (node_modules/.bin/chaind, node/bin/chaind.js copied alone: its
 * imports are relative to where it was), a binary for another platform, a script whose interpreter is missing.
 * `shown` is the path the operator gave, `binary` the copy being checked.
 */
export async function checkBinaryRuns(binary: string, shown: string): Promise<void> {
  const r = await execa(binary, ["version"], {
    reject: false,
    all: true,
    stdin: "ignore",
    timeout: VERSION_TIMEOUT_MS,
    maxBuffer: VERSION_MAX_BYTES,
    forceKillAfterDelay: 1000,
  });
  if (r.exitCode === 0 && !r.failed) return;
  const why = r.timedOut
    ? `it did not finish within ${VERSION_TIMEOUT_MS / 1000} s`
    : r.isMaxBuffer
      ? `it printed more than ${VERSION_MAX_BYTES / 1024} KiB`
      : r.exitCode === undefined
        ? (r.signal ? `it was killed by ${r.signal}` : telling(r.originalMessage ?? r.message ?? "")) ||
          "it could not be started"
        : `exit status ${r.exitCode}: ${telling(r.all ?? "") || "no output"}`;
  throw new VisorError(
    "BINARY_MISSING",
    `${shown} does not run on its own (\`version\` failed: ${why}); give a binary that runs wherever it is copied: a release's bin/chaind, or a launcher script (docs/OPERATIONS.md, Set up)`,
  );
}
