#!/usr/bin/env node
// `npm start`: a local single-validator chain run by visor, its data in .localnet/ (or `npm start -- --dir <folder>`).
// A second run continues the same chain; Ctrl-C stops visor and the node cleanly, a second Ctrl-C kills the node.
// `npm start -- --rpc-port N --api-port N --grpc-port N` (or LOCALNET_RPC_PORT, LOCALNET_API_PORT,
// LOCALNET_GRPC_PORT) moves a listener off its default port; the home keeps the port for later runs.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CHAIND_CLI, LocalTestnet } from "@chaind/harness/local-testnet";
import { repoRoot } from "./repo-root.js";

/** The listeners `npm start` can move: its flag and variable, and the config keys that name the port. */
const LISTENERS = {
  rpc: {
    env: "LOCALNET_RPC_PORT",
    keys: [
      ["config", "rpc.laddr", "tcp://127.0.0.1:"],
      ["client", "node", "tcp://localhost:"],
    ],
  },
  api: { env: "LOCALNET_API_PORT", keys: [["app", "api.address", "tcp://localhost:"]] },
  grpc: { env: "LOCALNET_GRPC_PORT", keys: [["app", "grpc.address", "localhost:"]] },
} as const;
type Listener = keyof typeof LISTENERS;

let dir: string;
const ports = new Map<Listener, number>();
try {
  const { values } = parseArgs({
    options: {
      dir: { type: "string" },
      "rpc-port": { type: "string" },
      "api-port": { type: "string" },
      "grpc-port": { type: "string" },
    },
  });
  dir = values.dir ? resolve(values.dir) : join(repoRoot(), ".localnet");
  for (const [name, { env }] of Object.entries(LISTENERS) as [Listener, (typeof LISTENERS)[Listener]][]) {
    const given = values[`${name}-port`] ?? process.env[env];
    if (given === undefined || given === "") continue;
    const port = /^\d+$/.test(given) ? Number(given) : Number.NaN;
    if (!(port >= 1 && port <= 65535))
      throw new Error(
        `--${name}-port (or ${env}) must be a port number 1-65535, got ${JSON.stringify(given)}`,
      );
    ports.set(name, port);
  }
} catch (e) {
  console.error(`npm start: ${(e as Error).message}`);
  process.exit(2);
}

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
  ownProcessGroup: true,
  echo: (line: string) => process.stdout.write(`${line}\n`),
});
console.log(fresh ? `Created a local chain in ${net.home}` : `Continuing the local chain in ${net.home}`);
// chaind's own `config set` writes each port, keeping the files' comments.
for (const [name, port] of ports)
  for (const [file, key, prefix] of LISTENERS[name].keys)
    execFileSync(process.execPath, [
      CHAIND_CLI,
      "config",
      "set",
      file,
      key,
      `${prefix}${port}`,
      "--home",
      net.home,
    ]);
// visor runs in a process group of its own, so a terminal's Ctrl-C reaches only this script, which passes it on
// once: in the terminal's group visor would get the terminal's SIGINT and this script's, and the node two.
net.relaySignals(() => console.log("\nStopping visor and the node (Ctrl-C again kills the node)..."));
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
