import { randomBytes } from "node:crypto";
import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { HomeExistsError, InitHomeError, initHome } from "../chain/init-home.js";
import { CliError } from "../client/cli-error.js";
import { DEFAULT_BECH32_PREFIX } from "../config/genesis.js";
import type { GlobalArgs } from "./global-options.js";

interface InitArgs extends GlobalArgs {
  moniker: string;
  "chain-id"?: string;
  overwrite: boolean;
  "bech32-prefix": string;
}

/** `chaind init <moniker>`: config files, validator key and genesis in a new home. */
export function initCommand(def: AppDefinition): CommandModule<GlobalArgs, InitArgs> {
  return {
    command: "init <moniker>",
    describe: "Initialize the node's configuration files, validator key and genesis",
    builder: (y) =>
      y
        .positional("moniker", {
          type: "string",
          demandOption: true,
          describe: "a human-readable name for this node",
        })
        .option("chain-id", { type: "string", describe: "genesis chain id (random when omitted)" })
        .option("overwrite", {
          type: "boolean",
          default: false,
          describe: "overwrite an existing genesis.json",
        })
        .option("bech32-prefix", {
          type: "string",
          default: DEFAULT_BECH32_PREFIX,
          describe: "account address prefix of the chain",
        }) as never,
    handler: (args) => {
      const chainId = args["chain-id"] || `test-chain-${randomBytes(3).toString("hex")}`;
      try {
        const { layout, validatorAddress } = initHome(
          {
            home: args.home,
            moniker: args.moniker,
            chainId,
            bech32Prefix: args["bech32-prefix"],
            overwrite: args.overwrite,
          },
          def,
        );
        process.stdout.write(
          `${JSON.stringify({ moniker: args.moniker, chain_id: chainId, validator_address: validatorAddress, home: layout.home }, null, 2)}\n`,
        );
      } catch (e) {
        if (e instanceof HomeExistsError || e instanceof InitHomeError) throw new CliError(e.message);
        throw new CliError(`init failed: ${(e as Error).message}`);
      }
    },
  };
}
