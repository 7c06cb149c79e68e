import { createInterface, type Interface } from "node:readline";
import { Writable } from "node:stream";
import { KeyringError } from "./keyring-error.js";

export interface TerminalInputStreams {
  /** process.stdin, or any stream of lines (tests) */
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  /** where prompts go: stderr, so stdout stays machine-readable */
  output: NodeJS.WritableStream;
}

/**
 * Answers to prompts, one line each: typed at a terminal (secrets without echo), or read in order from piped
 * stdin as Cosmos CLIs do (`printf 'pass\npass\n' | chaind keys add k --keyring-backend file`).
 */
export class TerminalInput {
  private rl: Interface | null = null;
  private readonly lines: string[] = [];
  private readonly waiters: ((line: string | null) => void)[] = [];
  private ended = false;
  private muted = false;

  constructor(private readonly streams: TerminalInputStreams) {}

  get isTTY(): boolean {
    return this.streams.input.isTTY === true;
  }

  /** The next line; `what` names it in the error when input ends first. */
  readLine(prompt: string, what: string): Promise<string> {
    return this.read(prompt, what, false);
  }

  /** Like readLine, but a terminal does not echo what is typed. */
  readSecret(prompt: string, what: string): Promise<string> {
    return this.read(prompt, what, true);
  }

  /** Releases the terminal; without it an open TTY keeps the process alive. */
  close(): void {
    this.rl?.close();
  }

  private async read(prompt: string, what: string, secret: boolean): Promise<string> {
    this.start();
    this.streams.output.write(prompt);
    this.muted = secret && this.isTTY;
    let line: string | null;
    try {
      line =
        this.lines.length > 0
          ? this.lines.shift()!
          : this.ended
            ? null
            : await new Promise((r) => this.waiters.push(r));
    } finally {
      if (this.muted) this.streams.output.write("\n");
      this.muted = false;
    }
    if (!this.isTTY && !prompt.endsWith("\n")) this.streams.output.write("\n");
    if (line === null) throw new KeyringError("NO_INPUT", `no ${what} given: input ended`);
    return line;
  }

  private start(): void {
    if (this.rl) return;
    const tty = this.isTTY;
    // readline echoes typed characters through this, so muting it hides secrets.
    const echo = new Writable({
      write: (chunk, _enc, done) => {
        if (!this.muted) this.streams.output.write(chunk);
        done();
      },
    });
    const rl = createInterface({
      input: this.streams.input,
      output: tty ? echo : undefined,
      terminal: tty,
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    rl.on("line", (line) => {
      const waiter = this.waiters.shift();
      if (waiter) waiter(line);
      else this.lines.push(line);
    });
    rl.on("close", () => {
      this.ended = true;
      for (const waiter of this.waiters.splice(0)) waiter(null);
    });
    // Ctrl-C at a prompt ends the input (the caller fails with "no ... given") instead of being swallowed.
    rl.on("SIGINT", () => rl.close());
    this.rl = rl;
  }
}
