import { createHash, randomFillSync } from "node:crypto";
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ReleaseServer } from "@chaind/harness/release-server";
import { execa } from "execa";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { scratchDir } from "./scratch-dir.js";

/** Writes `mb` MiB of random bytes (incompressible, like a binary) and answers their sha256. */
export function writeRandomFile(path: string, mb: number): string {
  const hash = createHash("sha256");
  const chunk = Buffer.alloc(1024 * 1024);
  const fd = openSync(path, "w");
  try {
    for (let i = 0; i < mb; i++) {
      randomFillSync(chunk);
      hash.update(chunk);
      writeSync(fd, chunk);
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

interface ChildRun {
  ms: number;
  bytes: number;
  maxRssMb: number;
}

async function downloadInChild(
  mode: "visor" | "plain",
  url: string,
  dest: string,
  sha: string,
): Promise<ChildRun> {
  const r = await execa("node", [join(import.meta.dirname, "download-child.js"), mode, url, dest, sha], {
    reject: false,
  });
  rmSync(dest, { force: true });
  if (r.exitCode !== 0) throw new Error(`${mode} download failed: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split("\n").pop()!) as ChildRun;
}

/**
 * Issue 8.7: visor's downloader (hash while streaming, fsync, verify, rename) on an artifact from a loopback
 * server, against a plain streamed download of the same file, each in a fresh process; MB/s and peak RSS.
 */
export async function downloadVerify(opts: BenchOptions): Promise<BenchSection> {
  const dir = scratchDir("download");
  let server: ReleaseServer | null = null;
  try {
    const served = join(dir.path, "served");
    mkdirSync(served);
    const sha = writeRandomFile(join(served, "artifact.bin"), opts.downloadMb);
    server = await ReleaseServer.start({ dir: served });
    const url = server.fileUrl("artifact.bin");
    const runs = { visor: [] as ChildRun[], plain: [] as ChildRun[] };
    for (let i = 0; i < opts.runs; i++) {
      runs.plain.push(await downloadInChild("plain", url, join(dir.path, "plain.bin"), sha));
      runs.visor.push(await downloadInChild("visor", url, join(dir.path, "visor.bin"), sha));
    }
    for (const r of [...runs.plain, ...runs.visor])
      if (r.bytes !== opts.downloadMb * 1024 * 1024) throw new Error(`downloaded ${r.bytes} bytes`);
    const mbps = (r: ChildRun) => opts.downloadMb / (r.ms / 1000);
    const plain = figure("plain download", "MiB/s", runs.plain.map(mbps));
    const plainRss = figure(
      "plain download peak RSS",
      "MiB",
      runs.plain.map((r) => r.maxRssMb),
    );
    return {
      id: "download",
      title: "Download and verify",
      params: { artifactMiB: opts.downloadMb, runs: opts.runs },
      figures: [
        plain,
        figure("visor download + sha256 verify", "MiB/s", runs.visor.map(mbps), plain),
        plainRss,
        figure(
          "visor download peak RSS",
          "MiB",
          runs.visor.map((r) => r.maxRssMb),
          plainRss,
        ),
      ],
      notes: [
        "Server and downloader are separate processes on the same machine; the file is in the page cache, so the network is loopback and the disk is write-only.",
      ],
    };
  } finally {
    await server?.close();
    dir.remove();
  }
}
