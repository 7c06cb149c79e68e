import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandModule } from "yargs";
import { Coins } from "../../app/coins.js";
import type { HomeArgs } from "../../app/home-args.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { CliError } from "../../client/cli-error.js";
import { type KeyringArgs, keyringOptions, withCliKeyring } from "../../client/cli-keyring.js";
import { signGenesisValidatorTx } from "../../client/genesis-validator-tx.js";
import { DEFAULT_BECH32_PREFIX, readGenesis } from "../../config/genesis.js";
import { HomeLayout } from "../../config/home-layout.js";
import { readPrivValidatorKey } from "../../config/priv-validator-key.js";

interface GentxArgs extends KeyringArgs {
  key: string;
  amount: string;
  moniker?: string;
}

/**
 * `chaind genesis gentx <key> <amount>`: a MsgCreateValidator signed by the key, bonding `amount` with this
 * home's consensus key (priv_validator_key.json), written to config/gentx/ for collect-gentxs.
 */
export function gentxCommand(types: TypeRegistry): CommandModule<HomeArgs, GentxArgs> {
  return {
    command: "gentx <key> <amount>",
    describe: "Generate a genesis tx that creates a validator with a self-delegation",
    builder: (y) =>
      y
        .positional("key", { type: "string", demandOption: true })
        .positional("amount", { type: "string", demandOption: true })
        .option("moniker", { type: "string" })
        .options(keyringOptions) as never,
    handler: async (args) => {
      const layout = new HomeLayout(args.home);
      const genesis = readGenesis(layout.genesisJson);
      const prefix = genesis.bech32_prefix ?? DEFAULT_BECH32_PREFIX;
      let amount: Coins;
      try {
        amount = Coins.parse(args.amount);
      } catch (e) {
        throw new CliError(`invalid amount: ${(e as Error).message}`);
      }
      if (amount.list.length !== 1)
        throw new CliError("the self-delegation must be one coin of the bond denom");
      const key = await withCliKeyring(args, prefix, (ring) => ring.signer(args.key));
      const funded = (
        genesis.app_state.bank as { balances?: { address: string }[] } | undefined
      )?.balances?.some((b) => b.address === key.address);
      if (!funded)
        throw new CliError(`account ${key.address} is not in genesis: add it with add-genesis-account first`);
      const consensus = readPrivValidatorKey(layout.privValidatorKey);
      const tx = await signGenesisValidatorTx(types, {
        key,
        consensusPubKey: consensus.pubKey,
        amount,
        moniker: args.moniker,
        chainId: genesis.chain_id,
        bech32Prefix: prefix,
      });
      mkdirSync(layout.gentxDir, { recursive: true });
      const file = join(layout.gentxDir, `gentx-${Buffer.from(consensus.address).toString("hex")}.json`);
      writeFileSync(file, `${JSON.stringify(tx)}\n`);
      process.stdout.write(`Genesis transaction written to "${file}"\n`);
    },
  };
}
