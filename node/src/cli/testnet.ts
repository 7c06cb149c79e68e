import { join } from "node:path";
import { parseGoDuration } from "@chaind/core/go-duration";
import type { CommandModule } from "yargs";
import { Coins } from "../app/coins.js";
import type { AppDefinition } from "../chain/app-definition.js";
import { addGenesisAccount } from "../chain/genesis-accounts.js";
import { addGenesisValidator, setGovPeriods } from "../chain/genesis-validators.js";
import { HomeExistsError, InitHomeError, initHome, TESTNET_MIN_GAS_PRICE } from "../chain/init-home.js";
import { CliError } from "../client/cli-error.js";
import { openKeyring } from "../client/keyring/open-keyring.js";
import { DEFAULT_BECH32_PREFIX, writeGenesis } from "../config/genesis.js";
import type { GlobalArgs } from "./global-options.js";

interface TestnetArgs extends GlobalArgs {
  "chain-id": string;
  keys: number;
  "block-time": string;
  balance: string;
  stake: string;
  "voting-period": string;
  "deposit-period": string;
  "min-deposit": string;
  overwrite: boolean;
  "bech32-prefix": string;
}

const NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"];

/** `chaind testnet`: a ready single-validator home with funded test keys and every listener on. */
export function testnetCommand(def: AppDefinition): CommandModule<GlobalArgs, TestnetArgs> {
  return {
    command: "testnet",
    describe: "Create a ready-to-start single-validator home with funded test keys",
    builder: (y) =>
      y
        .option("chain-id", { type: "string", default: "testnet-1" })
        .option("keys", {
          alias: "validators-keys",
          type: "number",
          default: 3,
          describe: "funded test keys besides the validator's",
        })
        .option("block-time", {
          type: "string",
          default: "1s",
          describe: "consensus.timeout_commit, a Go duration",
        })
        .option("balance", {
          type: "string",
          default: "1000000000000stake",
          describe: "funds of each test key",
        })
        .option("stake", {
          type: "string",
          default: "100000000000",
          describe: "tokens the validator key bonds at genesis (its voting power)",
        })
        .option("voting-period", {
          type: "string",
          default: "10s",
          describe: "gov voting period, a Go duration",
        })
        .option("deposit-period", {
          type: "string",
          default: "10s",
          describe: "gov deposit period, a Go duration",
        })
        .option("min-deposit", { type: "string", default: "10000000stake", describe: "gov minimum deposit" })
        .option("overwrite", { type: "boolean", default: false })
        .option("bech32-prefix", {
          type: "string",
          default: DEFAULT_BECH32_PREFIX,
          describe: "account address prefix of the chain",
        }) as never,
    handler: async (args) => {
      let blockTimeMs: number;
      let balance: Coins;
      let votingPeriodMs: number;
      let depositPeriodMs: number;
      try {
        blockTimeMs = parseGoDuration(args["block-time"]);
        balance = Coins.parse(args.balance);
        votingPeriodMs = parseGoDuration(args["voting-period"]);
        depositPeriodMs = parseGoDuration(args["deposit-period"]);
        Coins.parse(args["min-deposit"]);
        if (!/^\d+$/.test(args.stake) || BigInt(args.stake) <= 0n)
          throw new Error("--stake must be a positive integer");
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      if (!Number.isInteger(args.keys) || args.keys < 0 || args.keys > 100)
        throw new CliError("--keys must be an integer from 0 to 100");
      let result: ReturnType<typeof initHome>;
      try {
        result = initHome(
          {
            home: args.home,
            moniker: "validator",
            chainId: args["chain-id"],
            bech32Prefix: args["bech32-prefix"],
            overwrite: args.overwrite,
            minGasPrice: TESTNET_MIN_GAS_PRICE,
            tuneApp: (c) => {
              c.api.enable = true;
              c.api.swagger = true;
              c.grpc.enable = true;
            },
            tuneNode: (c) => {
              c.consensus.timeoutCommitMs = blockTimeMs;
            },
            // Throwaway keys that tests and newcomers use without a passphrase; said so below.
            tuneClient: (c) => {
              c.keyringBackend = "test";
            },
          },
          def,
        );
      } catch (e) {
        if (e instanceof HomeExistsError || e instanceof InitHomeError) throw new CliError(e.message);
        throw e;
      }
      const ring = openKeyring({ backend: "test", home: args.home, prefix: args["bech32-prefix"] });
      const names = ["validator", ...Array.from({ length: args.keys }, (_, i) => NAMES[i] ?? `user${i + 1}`)];
      const keys = [];
      for (const name of names) {
        if (await ring.exists(name)) await ring.delete(name);
        const { info, mnemonic } = await ring.add(name, {});
        addGenesisAccount(result.genesis, info.address, balance, false);
        if (name === "validator")
          addGenesisValidator(result.genesis, {
            operator: info.address,
            consensusPubKey: result.validatorPubKey,
            moniker: "validator",
            amount: BigInt(args.stake),
          });
        keys.push({ name, address: info.address, mnemonic });
      }
      setGovPeriods(result.genesis, { votingPeriodMs, depositPeriodMs, minDeposit: args["min-deposit"] });
      writeGenesis(result.layout.genesisJson, result.genesis);
      process.stderr.write(
        `keyring-backend "test": the keys of this home are stored unencrypted in ${join(args.home, "keyring-test")}, for testing only\n`,
      );
      process.stdout.write(
        `${JSON.stringify({ home: args.home, chain_id: args["chain-id"], keys }, null, 2)}\n`,
      );
    },
  };
}
