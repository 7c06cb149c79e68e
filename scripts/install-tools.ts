#!/usr/bin/env node
// Installs the reference binaries (CometBFT, stock cosmovisor) into .tools/bin when missing: `npm test` runs it
// first. Without Go it says so in one line and leaves the tests that need them to skip; with --require (what
// .ci/run passes) a binary that cannot be built fails it.
//
//   node dist/scripts/install-tools.js [--require]

import { goVersion, installReferenceBinaries } from "@chaind/harness/reference-binaries";

async function main(): Promise<number> {
  const require = process.argv.includes("--require");
  const go = await goVersion();
  if (!go) {
    console.log("install-tools: no Go on this machine; the tests that run cometbft or cosmovisor will skip");
    return require ? 1 : 0;
  }
  const { installed, failed } = await installReferenceBinaries((line) =>
    console.log(`install-tools: ${line}`),
  );
  for (const f of failed) console.error(`install-tools: ${f.name} could not be built: ${f.error}`);
  if (installed.length > 0) console.log(`install-tools: installed ${installed.join(", ")} (${go})`);
  return failed.length > 0 && require ? 1 : 0;
}

process.exitCode = await main();
