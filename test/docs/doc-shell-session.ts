import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** What one command did: its exit status and what it printed. */
export interface CommandResult {
  /** null: it ran past its time and was killed. */
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * One bash process that runs a document's commands one after another, as a reader types them into a terminal:
 * variables, `export`, `cd` and files carry from one command to the next. No command reads the session's stdin
 * (so none can swallow the commands after it or wait at a prompt); what it prints is kept per command.
 */
export class DocShellSession {
  private readonly bash: ChildProcessWithoutNullStreams;
  private readonly lines: string[] = [];
  private waiter: (() => void) | null = null;
  private next = 0;
  private stderr = "";
  /** Process groups of the long-running commands started in the background, with their log files. */
  readonly background: { pgid: number; log: string; command: string }[] = [];

  constructor(
    readonly cwd: string,
    private readonly logDir: string,
    env: NodeJS.ProcessEnv,
  ) {
    this.bash = spawn("bash", ["--noprofile", "--norc"], { cwd, env, stdio: ["pipe", "pipe", "pipe"] });
    createInterface({ input: this.bash.stdout }).on("line", (line) => {
      this.lines.push(line);
      this.waiter?.();
    });
    // The session's own complaints (a command it cannot parse), for the error when it ends.
    this.bash.stderr.on("data", (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-2000);
    });
    this.bash.on("exit", () => this.waiter?.());
    // Job control: each background command gets its own process group, so stopping it stops its children.
    this.bash.stdin.write("set -m\n");
  }

  /**
   * Runs one command to its end; status null when it ran past `timeoutMs`, and then it and everything the session
   * started are killed (the session cannot go on). Stdin is empty unless a passphrase is given.
   */
  async run(command: string, timeoutMs: number, passphrase?: string): Promise<CommandResult> {
    const id = this.next++;
    const out = join(this.logDir, `${id}.out`);
    const err = join(this.logDir, `${id}.err`);
    // A passphrase, when given, is what every prompt reads: the same line, as often as asked.
    const stdin = passphrase === undefined ? "/dev/null" : `<(yes '${passphrase}')`;
    this.bash.stdin.write(
      `{\n${command}\n} < ${stdin} >'${out}' 2>'${err}'; __s=$?; printf '@@done ${id} %s\\n' "$__s"\n`,
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<null>((r) => {
      timer = setTimeout(() => r(null), timeoutMs);
    });
    const status = await Promise.race([this.marker(`@@done ${id} `).then(Number), timedOut]);
    clearTimeout(timer);
    if (status === null) killTree(this.bash.pid ?? 0);
    return { status, stdout: readIfAny(out), stderr: readIfAny(err) };
  }

  /** Starts a long-running command (a node, a supervisor) in the background and returns its process group. */
  async start(command: string): Promise<number> {
    const id = this.next++;
    const log = join(this.logDir, `${id}.log`);
    this.bash.stdin.write(
      `(\n${command}\nwait\n) </dev/null >'${log}' 2>&1 &\nprintf '@@bg ${id} %s\\n' "$!"\n`,
    );
    const pgid = Number(await this.marker(`@@bg ${id} `));
    this.background.push({ pgid, log, command });
    return pgid;
  }

  /** A shell word as the session expands it (`$DAEMON_HOME`, `~/.chaind`). */
  async expand(word: string): Promise<string> {
    const id = this.next++;
    this.bash.stdin.write(`printf '@@val ${id} %s\\n' ${word}\n`);
    return this.marker(`@@val ${id} `);
  }

  /** Stops every background command (SIGTERM to its group, SIGKILL after 30 s) and waits until it is gone. */
  async stopBackground(): Promise<void> {
    for (const { pgid } of this.background.splice(0)) {
      signal(pgid, "SIGTERM");
      for (let i = 0; i < 300 && alive(pgid); i++) await sleep(100);
      if (alive(pgid)) signal(pgid, "SIGKILL");
    }
  }

  async close(): Promise<void> {
    await this.stopBackground();
    this.bash.stdin.end();
    if (this.bash.exitCode === null && this.bash.signalCode === null)
      await new Promise((r) => this.bash.once("exit", r));
  }

  private async marker(prefix: string): Promise<string> {
    for (;;) {
      const i = this.lines.findIndex((l) => l.startsWith(prefix));
      if (i >= 0) return this.lines.splice(i, 1)[0].slice(prefix.length);
      if (this.bash.exitCode !== null)
        throw new Error(`the shell session ended (status ${this.bash.exitCode}): ${this.stderr}`);
      await new Promise<void>((r) => {
        this.waiter = r;
      });
      this.waiter = null;
    }
  }
}

/** Kills a process and everything below it (SIGKILL), children first found by their parent pid. */
function killTree(root: number) {
  const children = new Map<number, number[]>();
  for (const line of execFileSync("ps", ["-A", "-o", "pid=,ppid="], { encoding: "utf8" }).split("\n")) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  const all: number[] = [];
  const walk = (pid: number) => {
    all.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  for (const pid of all.reverse()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
}

export function alive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

function signal(pgid: number, sig: NodeJS.Signals) {
  try {
    process.kill(-pgid, sig);
  } catch {
    // already gone
  }
}

function readIfAny(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}

function sleep(ms: number) {
  return new Promise((r) => setTimeout(r, ms));
}
