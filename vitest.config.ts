import { defineConfig } from "vitest/config";

// Workspaces resolve each other through their `exports`; the `source` condition points those at the
// TypeScript sources, so tests run what they read, without a build in between.
const conditions = ["source", "module", "node", "development|production"];

export default defineConfig({
  ssr: { resolve: { conditions } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration tests start real processes; two workers match the two-core CI machine.
    pool: "forks",
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
  },
});
