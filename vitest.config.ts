import { defineConfig } from "vitest/config";
import { BaseSequencer, type TestSpecification } from "vitest/node";

// Workspaces resolve each other through their `exports`; the `source` condition points those at the
// TypeScript sources, so tests run what they read, without a build in between.
const conditions = ["source", "module", "node", "development|production"];

// Files that drive whole chains (under visor, or through many CLI processes) run for minutes while waiting on
// blocks. On a clean clone vitest has no timings and orders files by size, which can leave one of them for
// last with a single worker busy; starting them first keeps both workers full to the end.
const CHAIN_DRIVING = [
  /\/test\/e2e\//,
  /\/test\/supervisor\/visor-/,
  /\/test\/node\/cli-tx\//,
  /\/test\/reliability\//,
  // Every command block of the docs, each document a chain and a few dozen CLI processes.
  /\/test\/docs\//,
  // The operator commands' flows: each a chain and a dozen CLI processes.
  /\/test\/node\/cli\/(rollback|export|comet-commands|config-commands)\.test\.ts$/,
  /\/test\/node\/upgrade\/rollback-upgrade\.test\.ts$/,
  /\/test\/node\/snapshots\/snapshots-cli\.test\.ts$/,
  /\/test\/node\/keyring\/keys-export-import\.test\.ts$/,
];

class ChainsFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const first = sorted.filter((f) => CHAIN_DRIVING.some((re) => re.test(f.moduleId)));
    return [...first, ...sorted.filter((f) => !first.includes(f))];
  }
}

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real processes; two workers match the two-core CI machine.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    // A worker runs file after file in one process: each file's imports (the node's and visor's sources through
    // vite) are evaluated once per worker instead of once per file, which took about two minutes of CPU per run.
    // Tests keep their state in their own temp folders and processes; nothing they import holds state a later
    // file could see, beyond caches.
    isolate: false,
    // Concurrent tests in a file (each driving its own chain or visor) share the worker's two cores.
    maxConcurrency: 3,
    sequence: { sequencer: ChainsFirstSequencer },
  },
});
