import type { CommandModule } from "yargs";
import { AddressCodec } from "../app/address-codec.js";
import { Coins } from "../app/coins.js";
import type { AppDefinition } from "../chain/app-definition.js";
import { addGenesisAccount } from "../chain/genesis-accounts.js";
import { CliError } from "../client/cli-error.js";
import { type KeyringArgs, keyringOptions, withCliKeyring } from "../client/cli-keyring.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { DEFAULT_BECH32_PREFIX, readGenesis, writeGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";
import { cliApp } from "./cli-app.js";
import { collectGentxsCommand } from "./collect-gentxs.js";
import type { GlobalArgs } from "./global-options.js";

interface AddAccountArgs extends GlobalArgs, KeyringArgs {
  address: string;
  coins: string;
  append: boolean;
}

function addAccountCommand(): CommandModule<GlobalArgs, AddAccountArgs> {
  return {
    command: "add-genesis-account <address> <coins>",
    describe: "Add a funded account to genesis.json (address or key name)",
    builder: (y) =>
      y
        .positional("address", { type: "string", demandOption: true })
        .positional("coins", { type: "string", demandOption: true })
        .options(keyringOptions)
        .option("append", {
          type: "boolean",
          default: false,
          describe: "add the coins to an existing account's balance",
        }) as never,
    handler: async (args) => {
      const layout = new HomeLayout(args.home);
      const genesis = readGenesis(layout.genesisJson);
      const codec = new AddressCodec(genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX);
      let address = args.address;
      try {
        codec.fromString(address);
      } catch {
        try {
          address = await withCliKeyring(
            args,
            codec.prefix,
            async (ring) => (await ring.get(args.address)).address,
          );
        } catch (e) {
          throw new CliError(
            `${args.address} is neither a valid address nor a key in the keyring: ${(e as Error).message}`,
          );
        }
      }
      let coins: Coins;
      try {
        coins = Coins.parse(args.coins);
      } catch (e) {
        throw new CliError(`failed to parse coins: ${(e as Error).message}`);
      }
      try {
        addGenesisAccount(genesis, address, coins, args.append);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      writeGenesis(layout.genesisJson, genesis);
    },
  };
}

function validateCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs & { file?: string }> {
  return {
    command: "validate [file]",
    aliases: ["validate-genesis"],
    describe: "Validate the genesis file at the default location or at the given path",
    builder: (y) => y.positional("file", { type: "string" }) as never,
    handler: (args) => {
      const path = args.file ?? new HomeLayout(args.home).genesisJson;
      try {
        const genesis = readGenesis(path);
        const assembly = def.assemble({
          chainId: genesis.chain_id,
          bech32Prefix: genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX,
          minGasPrices: "",
        });
        for (const m of assembly.modules)
          m.validateGenesis?.(genesis.app_state[m.name] ?? m.defaultGenesis?.());
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      process.stdout.write(`File at ${path} is a valid genesis file\n`);
    },
  };
}

/** `chaind genesis ...`: building the genesis file, with the commands modules add (staking's gentx). */
export function genesisCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "genesis",
    describe: "Application's genesis-related subcommands",
    builder: (y) => {
      y.command(addAccountCommand()).command(validateCommand(def));
      const app = cliApp(def);
      for (const m of app.modules)
        for (const command of m.genesisCommands?.(app.context) ?? []) y.command(command);
      return y.command(collectGentxsCommand()).demandCommand(1, SHOW_GROUP_HELP) as never;
    },
    handler: () => {},
  };
}
