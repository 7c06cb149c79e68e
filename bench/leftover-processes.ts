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

/**
 * Stops a testnet's visor, then ends what it left running under `dir` (see killLeftoverProcesses), saying so in
 * `notes`.
 */
export async function stopVisorAndSweep(
  net: { stop(): Promise<void> } | null,
  dir: string,
  notes: string[],
): Promise<void> {
  await net?.stop();
  const left = killLeftoverProcesses(dir);
  if (left.length > 0)
    notes.push(`After visor stopped, its daemon was still running and was killed: ${left.join("; ")}.`);
}
