import { existsSync } from "node:fs";
import { join } from "node:path";
import { execa } from "execa";
import { describe, expect, it } from "vitest";

const BUILT = join(import.meta.dirname, "../../supervisor/dist/host/lower-priority.js");

// What `visor rehearse` does first, in a process of its own: every thread of it, not the main one alone (Linux
// keeps a nice value per thread, and Node starts its helper threads before any code runs).
describe.skipIf(!existsSync("/proc/self/task"))("lowering visor's own priority", () => {
  it("reaches every thread of the process, and the threads and children started after", async () => {
    const script = `
      import { readdirSync, readFileSync } from "node:fs";
      import { execFileSync } from "node:child_process";
      import { lowerOwnPriority } from ${JSON.stringify(BUILT)};
      const nices = () => readdirSync("/proc/self/task").map((t) => {
        const stat = readFileSync("/proc/self/task/" + t + "/stat", "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]);
      });
      const before = nices();
      lowerOwnPriority(10);
      // libuv's thread pool starts on first use, after the call.
      await Promise.all(Array.from({ length: 4 }, () => import("node:fs/promises").then((f) => f.readFile("/proc/self/stat"))));
      const child = Number(execFileSync("sh", ["-c", "cut -d' ' -f19 /proc/self/stat"]).toString());
      console.log(JSON.stringify({ before, after: nices(), child }));
    `;
    const r = await execa("node", ["--input-type=module", "-e", script]);
    const { before, after, child } = JSON.parse(r.stdout) as {
      before: number[];
      after: number[];
      child: number;
    };
    expect(before.length).toBeGreaterThan(1);
    expect(Math.min(...before)).toBeLessThan(10);
    expect(after.length).toBeGreaterThanOrEqual(before.length);
    for (const nice of after) expect(nice).toBeGreaterThanOrEqual(10);
    expect(child).toBeGreaterThanOrEqual(10);
  });
});
