#!/usr/bin/env node
// The harness as a command line, for testnets driven by hand or by scripts:
//   npm run localnet -- up [--dir D] [--binary <chaind>] [--block-time 1s] [--voting-period 20s]
//   npm run localnet -- upgrade --dir D --name v2 --height 500 --info '<plan info JSON>'
//   npm run localnet -- status --dir D
// `up` runs until Ctrl-C; the other commands talk to a testnet that `up` runs in another terminal.
import { chmodSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { CHAIND_CLI, LocalTestnet } from "@chaind/harness/local-testnet";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    dir: { type: "string", default: ".localnet-harness" },
    binary: { type: "string" },
    "block-time": { type: "string", default: "1s" },
    "voting-period": { type: "string", default: "20s" },
    name: { type: "string" },
    height: { type: "string" },
    info: { type: "string", default: "" },
  },
});
const dir = resolve(values.dir);

/** The chaind of this checkout, as the genesis binary visor installs. */
function devLauncher(): string {
  const path = join(dir, "bin", "chaind");
  if (!existsSync(path)) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `#!/bin/sh\nexec "${process.execPath}" "${CHAIND_CLI}" "$@"\n`);
    chmodSync(path, 0o755);
  }
  return path;
}

const net = await LocalTestnet.create({
  dir,
  genesisBinary: values.binary ? resolve(values.binary) : devLauncher(),
  blockTime: values["block-time"],
  votingPeriod: values["voting-period"],
  ownProcessGroup: positionals[0] === "up",
  echo: positionals[0] === "up" ? (line: string) => process.stdout.write(`${line}\n`) : undefined,
});

try {
  switch (positionals[0]) {
    case "up": {
      net.relaySignals(() => console.log("\nstopping visor and the node (Ctrl-C again kills the node)"));
      await net.start();
      console.log(`\ntestnet in ${dir}: ${[...net.listeners].map(([k, v]) => `${k} ${v}`).join(", ")}`);
      break;
    }
    case "upgrade": {
      if (!values.name || !values.height) throw new Error("upgrade needs --name and --height");
      const id = await net.proposeUpgrade({
        name: values.name,
        height: Number(values.height),
        info: values.info,
      });
      console.log(`proposal ${id} passed: ${values.name} at height ${values.height}`);
      break;
    }
    case "status":
      console.log(JSON.stringify({ dir, height: await net.height() }));
      break;
    default:
      throw new Error(`unknown command ${JSON.stringify(positionals[0] ?? "")}: use up, upgrade or status`);
  }
} catch (e) {
  console.error(`localnet: ${e instanceof Error ? e.message : String(e)}`);
  // visor runs in a process group of its own: a failed start must not leave it behind.
  await net.stop().catch(() => undefined);
  process.exit(1);
}
