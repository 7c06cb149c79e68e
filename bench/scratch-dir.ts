import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const live = new Set<string>();

/** A temporary folder a benchmark works in; removed by `remove()`, or at exit if a benchmark failed first. */
export function scratchDir(prefix: string): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), `chaind-bench-${prefix}-`));
  live.add(path);
  return {
    path,
    remove() {
      rmSync(path, { recursive: true, force: true });
      live.delete(path);
    },
  };
}

/** Removes every scratch folder still present (the runner calls this on exit and on Ctrl-C). */
export function removeAllScratchDirs(): void {
  for (const path of live) {
    try {
      // Retries: a process killed a moment ago may still be closing files in it.
      rmSync(path, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
    } catch (e) {
      console.error(`bench: could not remove ${path}: ${(e as Error).message}`);
    }
  }
  live.clear();
}

/** The scratch folders not removed yet. */
export function liveScratchDirs(): string[] {
  return [...live];
}
