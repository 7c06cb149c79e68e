import { readdirSync } from "node:fs";
import { join } from "node:path";
import { CHAIND_CLI } from "@chaind/harness/local-testnet";
import { execa } from "execa";
import { x as extractTar } from "tar";
import { buildRelease } from "../scripts/release.js";
import { makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { BenchProcess } from "./bench-process.js";
import { type BenchSection, figure } from "./bench-result.js";
import { scratchDir } from "./scratch-dir.js";

const TIMEOUT_COMMIT_MS = 200;

/** A program as a command line: the release's one-file binary, or Node running the workspace's bundle. */
type Program = { file: string; prefix: string[] };

/** ms from spawn to exit of one command, which must succeed. */
async function timed(file: string, args: string[]): Promise<number> {
  const t0 = performance.now();
  const r = await execa(file, args, { reject: false });
  const ms = performance.now() - t0;
  if (r.exitCode !== 0) throw new Error(`${file} ${args.join(" ")} exited ${r.exitCode}: ${r.stderr}`);
  return ms;
}

/** `chaind start` on a home whose chain has begun: ms from spawn to its first committed block, less timeout_commit. */
async function startToFirstBlock(p: Program, home: string): Promise<number> {
  const proc = new BenchProcess(p.file, [...p.prefix, "start", "--home", home]);
  try {
    const first = await Promise.race([
      proc.waitFor(/committed block/, 120_000),
      proc.proc.then((r) => {
        throw new Error(`chaind start exited ${r.exitCode}: ${proc.lines.slice(-5).join("\n")}`);
      }),
    ]);
    return first.at - proc.startedAt - TIMEOUT_COMMIT_MS;
  } finally {
    await proc.stop();
  }
}

/**
 * Issue 18: what `chaind` costs to start, against `node -e 0` (the floor: Node itself, nothing of ours), run
 * interleaved. `version` and `pre-upgrade` are what visor runs on every upgrade; `start` is measured to its first
 * committed block on a home whose chain has begun, less the one timeout_commit the first block waits. The release
 * binary (one esbuild bundle, what operators and visor run) and `node node/bin/chaind.js` (the workspace's build
 * bundled into a few ES modules, node/dist/bundle/, what the tests run) are both measured.
 */
export async function startup(opts: BenchOptions): Promise<BenchSection> {
  const dir = scratchDir("startup");
  try {
    await buildRelease({
      app: "node/src/cli/main.ts",
      version: "0.1.0",
      out: join(dir.path, "release"),
      baseUrl: "http://127.0.0.1/unused",
    });
    const archive = readdirSync(join(dir.path, "release")).find((f) => f.endsWith(".tar.gz"));
    if (!archive) throw new Error("the release build left no archive");
    await extractTar({ file: join(dir.path, "release", archive), cwd: dir.path });
    const release: Program = { file: join(dir.path, "bin", "chaind"), prefix: [] };
    const workspace: Program = { file: process.execPath, prefix: [CHAIND_CLI] };
    const home = join(dir.path, "home");
    makeBenchHome({ home, timeoutCommitMs: TIMEOUT_COMMIT_MS });
    // The first start runs InitChain; the measured ones restart a chain that has begun.
    await startToFirstBlock(release, home);

    const samples = new Map<string, number[]>();
    const add = (name: string, ms: number) => samples.set(name, [...(samples.get(name) ?? []), ms]);
    const runs = Math.max(opts.runs, opts.quick ? 3 : 5);
    for (let i = 0; i < runs; i++) {
      add("node -e 0", await timed(process.execPath, ["-e", "0"]));
      for (const [label, p] of [
        ["release", release],
        ["workspace", workspace],
      ] as const) {
        add(`${label}: version`, await timed(p.file, [...p.prefix, "version"]));
        add(
          `${label}: version --long --output json`,
          await timed(p.file, [...p.prefix, "version", "--long", "--output", "json"]),
        );
        add(`${label}: pre-upgrade`, await timed(p.file, [...p.prefix, "pre-upgrade", "--home", home]));
        add(`${label}: start to first block, less timeout_commit`, await startToFirstBlock(p, home));
      }
    }
    const floor = figure("node -e 0", "ms", samples.get("node -e 0") ?? []);
    return {
      id: "startup",
      title: "Start-up",
      params: { runs, timeoutCommitMs: TIMEOUT_COMMIT_MS },
      figures: [
        floor,
        ...[...samples]
          .filter(([name]) => name !== floor.name)
          .map(([name, ms]) => figure(name, "ms", ms, floor)),
      ],
      notes: [
        "Goals (issue 18): version and pre-upgrade <= 2x node -e 0, start to first block <= 4x, each measured from spawn by the benchmark process.",
      ],
    };
  } finally {
    dir.remove();
  }
}
