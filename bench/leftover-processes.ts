import { readdirSync, readFileSync } from "node:fs";

/**
 * Ends, by pid, processes whose command line names `dir` (a benchmark's own scratch folder): what a child
 * supervisor left behind when it was killed before its daemon. Answers their command lines.
 */
export function killLeftoverProcesses(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ").trim();
    } catch {
      continue;
    }
    if (!cmdline.includes(dir)) continue;
    try {
      process.kill(Number(entry), "SIGKILL");
      found.push(cmdline);
    } catch {
      // Gone already.
    }
  }
  return found;
}
