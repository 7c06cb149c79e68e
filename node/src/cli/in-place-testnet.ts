import type { Argv, CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { convertHomeToTestnet, TestnetRefusedError } from "../chain/home-to-testnet.js";
import { CliError } from "../client/cli-error.js";
import { TerminalInput } from "../client/keyring/terminal-input.js";
import { HomeLayout } from "../config/home-layout.js";
import { StoreLockedError } from "../store/store-errors.js";
import type { GlobalArgs } from "./global-options.js";
import { isYes } from "./keys-confirmation.js";
import { startCommand } from "./start.js";

interface InPlaceTestnetArgs extends GlobalArgs {
  "new-chain-id": string;
  "operator-address": string;
  "trigger-testnet-upgrade"?: string;
  "skip-confirmation": boolean;
}

/** As the SDK asks, on stdin (a piped answer counts, as there). */
async function confirmed(): Promise<boolean> {
  const input = new TerminalInput({ input: process.stdin, output: process.stderr });
  try {
    return isYes(
      await input.readLine(
        "This operation will modify state in your data folder and cannot be undone. Do you want to continue? (y/n) ",
        "confirmation",
      ),
    );
  } finally {
    input.close();
  }
}

/**
 * `chaind in-place-testnet <new-chain-id> <operator-address>`, the SDK 0.50 command: converts a stopped copy of a
 * home into a one-validator testnet (this home's validator key signs, the operator holds the power and funds,
 * short voting and unbonding periods, optionally an upgrade due at the next height), then starts the node on
 * it with `start`'s flags.
 */
export function inPlaceTestnetCommand(def: AppDefinition): CommandModule<GlobalArgs, InPlaceTestnetArgs> {
  const start = startCommand(def);
  return {
    command: "in-place-testnet <new-chain-id> <operator-address>",
    describe:
      "Turn this home's chain into a one-validator testnet of a new chain id (this node's key, the operator's power), and start it",
    builder: (y) =>
      (start.builder as (y: Argv<GlobalArgs>) => Argv<GlobalArgs>)(y)
        .positional("new-chain-id", { type: "string", describe: "the testnet's chain id (must differ)" })
        .positional("operator-address", {
          type: "string",
          describe: "the account that operates the only validator and gets funds",
        })
        .option("trigger-testnet-upgrade", {
          type: "string",
          describe: "schedule the upgrade plan of this name at the next height",
        })
        .option("skip-confirmation", {
          type: "boolean",
          default: false,
          describe: "do not ask before changing the data folder",
        }) as never,
    handler: async (a) => {
      if (!a["skip-confirmation"] && !(await confirmed())) throw new CliError("aborted: nothing changed");
      const layout = new HomeLayout(a.home);
      try {
        const r = await convertHomeToTestnet(layout, {
          newChainId: String(a["new-chain-id"]),
          operator: String(a["operator-address"]),
          upgradeToTrigger: a["trigger-testnet-upgrade"],
        });
        if (r.droppedBlock !== undefined)
          process.stderr.write(
            `dropped block ${r.droppedBlock} of ${r.oldChainId}, saved but never applied: the testnet makes its own\n`,
          );
        process.stderr.write(
          `converted ${r.oldChainId} at height ${r.height} into ${a["new-chain-id"]}; the next block applies it\n`,
        );
      } catch (e) {
        if (e instanceof StoreLockedError)
          throw new CliError(`cannot convert while the node runs: ${e.message}`);
        if (e instanceof TestnetRefusedError) throw new CliError(`cannot convert: ${e.message}`);
        throw new CliError(`in-place-testnet failed: ${(e as Error).message}`);
      }
      await start.handler(a as never);
    },
  };
}
