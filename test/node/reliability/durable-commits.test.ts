import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listenOnPickedPorts } from "@chaind/harness/free-listener-ports";
import { LineCollector } from "@chaind/harness/line-collector";
import { execa } from "execa";
import { afterAll, describe, expect, it } from "vitest";
import { CHAIND_BIN, chaind } from "../helpers/chaind-process.js";

// Debian's strace, where it is installed and may trace (.ci/run installs it); ptrace may be denied in a sandbox.
const straceWorks = spawnSync("strace", ["-f", "-e", "trace=fdatasync", "true"]).status === 0;

/** The epoch seconds (with microseconds) of each fsync/fdatasync strace saw on a file of `dir` ending in `.log`. */
function logSyncTimes(trace: string, dir: string): number[] {
  const out: number[] = [];
  for (const line of trace.split("\n")) {
    // With -f, a call another thread interrupts is split: "fdatasync(21</x.log> <unfinished ...>", then "<...
    // fdatasync resumed>) = 0". Either way the first part names the file, once per call.
    const m = line.match(/^\d+\s+(\d+\.\d+) f(?:data)?sync\(\d+<([^>]+)>(?:\) = 0| <unfinished \.\.\.>)/);
    if (!m) continue;
    if (m[2].startsWith(dir) && m[2].endsWith(".log")) out.push(Number(m[1]));
  }
  return out;
}

describe.skipIf(!straceWorks)(
  "durable blocks (under strace; skipped where strace is missing or may not trace)",
  () => {
    const home = mkdtempSync(join(tmpdir(), "durable-"));
    afterAll(() => rmSync(home, { recursive: true, force: true }));

    it("syncs the LevelDB log of every committed block before RPC reports the block", async () => {
      const made = await chaind([
        "testnet",
        "--home",
        home,
        "--chain-id",
        "durable-1",
        "--block-time",
        "150ms",
      ]);
      expect(made.exitCode, made.stderr).toBe(0);
      listenOnPickedPorts(home);
      const trace = join(home, "strace.out");
      const proc = execa(
        "strace",
        [
          "-f",
          "-ttt",
          "-y",
          "-e",
          "trace=fsync,fdatasync",
          "-o",
          trace,
          "node",
          CHAIND_BIN,
          "start",
          "--home",
          home,
        ],
        { reject: false, all: true, buffer: false, detached: true },
      );
      const out = new LineCollector(proc.all!);
      // height -> when (epoch seconds) RPC abci_info first reported it committed (`status` may already name a block
      // that is saved and still running)
      const reported = new Map<number, number>();
      try {
        const rpc = (await out.waitFor(/\brpc listening address=(\S+)/, 60_000))[1].replace(/^\w+:\/\//, "");
        const deadline = Date.now() + 60_000;
        while (reported.size < 8 && Date.now() < deadline) {
          const res = await fetch(`http://${rpc}/abci_info`).catch(() => null);
          const at = Date.now() / 1000;
          if (res?.ok) {
            const h = Number(((await res.json()) as AbciInfoAnswer).result.response.last_block_height);
            if (h > 0 && !reported.has(h)) reported.set(h, at);
          }
          await new Promise((r) => setTimeout(r, 10));
        }
      } finally {
        // The group: strace and the node both get SIGTERM, so the node shuts down as it would under any supervisor.
        if (proc.pid) process.kill(-proc.pid, "SIGTERM");
        await proc;
      }
      expect(reported.size).toBeGreaterThanOrEqual(8);
      const syncs = logSyncTimes(readFileSync(trace, "utf8"), join(home, "data"));
      // Each block is two synced writes: the block saved before it runs, then its state, results and meta. By the
      // time RPC reports height h, a node started on an empty chain has committed blocks 1..h.
      for (const [height, at] of reported) {
        const before = syncs.filter((t) => t < at).length;
        expect(before, `log syncs before RPC reported height ${height}`).toBeGreaterThanOrEqual(2 * height);
      }
    });
  },
);

interface AbciInfoAnswer {
  result: { response: { last_block_height: string } };
}
