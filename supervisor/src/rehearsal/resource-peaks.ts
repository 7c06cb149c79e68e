import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** Every process below `pid`, from /proc (empty where there is none). */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // The parent is the 2nd field after the command name, which may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // Ended while listed.
    }
  }
  const out: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = children.get(queue.shift() as number) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

function residentBytes(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Space the files under `dir` take that no other name shares (a hard-linked table costs nothing new). */
function ownBytes(dir: string): number {
  let n = 0;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    try {
      const st = lstatSync(join(dir, name));
      if (st.isDirectory()) n += ownBytes(join(dir, name));
      else if (st.isFile() && st.nlink === 1) n += st.blocks * 512;
    } catch {
      // Removed while walked (a compaction).
    }
  }
  return n;
}

/**
 * The most memory this process's children held at once (the rehearsal's daemons: resident set summed over
 * every process below this one) and the most disk the copy took of its own, sampled while the rehearsal runs.
 */
export class ResourcePeaks {
  memoryBytes = 0;
  diskBytes = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly copyDir: string,
    everyMs = 500,
  ) {
    this.timer = setInterval(() => this.sample(), everyMs);
    this.timer.unref();
  }

  sample(): { diskBytes: number } {
    const memory = descendants(process.pid).reduce((n, pid) => n + residentBytes(pid), 0);
    const disk = ownBytes(this.copyDir);
    this.memoryBytes = Math.max(this.memoryBytes, memory);
    this.diskBytes = Math.max(this.diskBytes, disk);
    return { diskBytes: disk };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
