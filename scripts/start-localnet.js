#!/usr/bin/env node
// `npm start`: a local single-validator chain with its data in .localnet/. A second run continues the same chain.
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const home = join(root, ".localnet", "chaind");
const chaind = join(root, "bin", "chaind.js");

if (!existsSync(join(home, "config", "genesis.json"))) {
  const made = spawnSync(process.execPath, [chaind, "testnet", "--home", home, "--chain-id", "localnet-1"], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (made.status !== 0) process.exit(made.status ?? 1);
  console.log(`Created a local chain in ${home} (keys: validator, alice, bob, carol in its keyring-test)`);
}

console.log(`Starting chaind with home ${home}; Ctrl-C stops it after the current block.`);
const child = spawn(process.execPath, [chaind, "start", "--home", home], { stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => child.kill(sig));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 0 : 1)));
