import { createWriteStream, type WriteStream } from "node:fs";
import { Writable } from "node:stream";
import type { Logger } from "@chaind/core/logger";
import { redactUrls } from "../errors/url-redaction.js";

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** How many of the last lines a failed rehearsal's report shows. */
const KEPT_LINES = 40;

/**
 * The rehearsal's log: everything the copy's daemons print and what its visor logs, in one file that outlives
 * the copy, with the last lines kept for the report and each line offered to `onLine` as it comes.
 */
export class RehearsalLog extends Writable {
  private readonly file: WriteStream;
  private partial = "";
  private readonly last: string[] = [];

  constructor(
    readonly path: string,
    private readonly onLine: (line: string) => void = () => {},
  ) {
    super();
    this.file = createWriteStream(path, { mode: 0o600 });
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (e?: Error | null) => void): void {
    this.file.write(chunk);
    const lines = (this.partial + chunk.toString("utf8")).split("\n");
    this.partial = lines.pop() ?? "";
    for (const line of lines) this.keep(line);
    done();
  }

  private keep(line: string): void {
    // Daemons colour their logs on a terminal; the report is plain text.
    const plain = line.replace(ANSI_COLOUR, "").trimEnd();
    if (!plain) return;
    this.last.push(plain);
    if (this.last.length > KEPT_LINES) this.last.shift();
    this.onLine(plain);
  }

  get lastLines(): string[] {
    return [...this.last];
  }

  /** visor's own lines for the copy, in the log beside the daemons'. */
  logger(module = "visor"): Logger {
    const line =
      (level: string) =>
      (msg: string, ctx?: Record<string, unknown>): void => {
        const fields = Object.entries(ctx ?? {})
          .map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`)
          .join(" ");
        this.write(redactUrls(`${level} [${module}] ${msg}${fields ? ` ${fields}` : ""}\n`));
      };
    return {
      error: line("ERR"),
      warn: line("WRN"),
      info: line("INF"),
      debug: () => {},
      child: (m) => this.logger(m),
    };
  }

  close(): Promise<void> {
    if (this.partial) this.keep(this.partial);
    this.partial = "";
    return new Promise((resolve) => this.file.end(resolve));
  }
}
