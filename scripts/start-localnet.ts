#!/usr/bin/env node
// `npm start`: a local single-validator chain run by visor, its data in .localnet/. A second run continues
// the same chain; Ctrl-C stops visor and the node cleanly.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { CHAIND_CLI, LocalTestnet } from "@chaind/harness/local-testnet";
import { repoRoot } from "./repo-root.js";

const dir = join(repoRoot(), ".localnet");

// visor installs this launcher as the genesis binary: the chaind of this checkout.
const launcher = join(dir, "bin", "chaind");
if (!existsSync(launcher)) {
  mkdirSync(dirname(launcher), { recursive: true });
  writeFileSync(launcher, `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_CLI}" "$@"\n`);
  chmodSync(launcher, 0o755);
}
const fresh = !existsSync(join(dir, "node", "config", "genesis.json"));
const net = await LocalTestnet.create({
  dir,
  genesisBinary: launcher,
  chainId: "localnet-1",
  blockTime: "1s",
  votingPeriod: "20s",
  freePorts: false,
  echo: (line: string) => process.stdout.write(`${line}\n`),
});
console.log(fresh ? `Created a local chain in ${net.home}` : `Continuing the local chain in ${net.home}`);
let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  console.log("\nStopping visor and the node...");
  await net.stop();
  process.exit(0);
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
try {
  await net.start();
} catch (e) {
  console.error(`npm start: ${e instanceof Error ? e.message : String(e)}`);
  await net.stop();
  process.exit(1);
}
const at = (name: string) => net.listeners.get(name) ?? "(off)";
console.log(
  [
    "",
    `  chain id   localnet-1 (keys validator, alice, bob, carol in ${join(net.home, "keyring-test")})`,
    `  RPC        ${at("rpc")}`,
    `  REST       ${at("api")}`,
    `  Swagger    ${at("api")}/swagger/`,
    `  gRPC       ${at("grpc")}`,
    `  try        npx chaind query bank balances $(npx chaind keys show alice -a --home ${net.home}) --home ${net.home}`,
    "  Ctrl-C stops it; npm start again continues the same chain.",
    "",
  ].join("\n"),
);
