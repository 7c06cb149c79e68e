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
import {
  DEFAULT_NETWORK_PORTS,
  type NetworkDescription,
  NetworkPortsError,
  writeNetworkHomes,
} from "./testnet-network.js";

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
  validators: number;
  "output-dir"?: string;
  "node-dir-prefix": string;
  "starting-port"?: number;
}

const NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"];

/**
 * `chaind testnet`: a ready single-validator home with funded test keys and every listener on; with
 * `--validators N`, the homes of an N-validator network on CometBFT (testnet-network.ts).
 */
export function testnetCommand(def: AppDefinition): CommandModule<GlobalArgs, TestnetArgs> {
  return {
    command: "testnet",
    describe:
      "Create a ready-to-start single-validator home with funded test keys, or with --validators N the homes of an N-validator network on CometBFT",
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
          describe:
            "tokens the validator key bonds at genesis (its voting power); for a network, one value for all or a comma-separated value per validator",
        })
        .option("validators", {
          alias: "v",
          type: "number",
          default: 1,
          describe:
            "validators of the network; more than 1 writes one home each under --output-dir, run by CometBFT",
        })
        .option("output-dir", {
          type: "string",
          describe: "folder of the network's homes (<output-dir>/<node-dir-prefix><i>); default ./mytestnet",
        })
        .option("node-dir-prefix", {
          type: "string",
          default: "node",
          describe: "name of each home folder before its index",
        })
        .option("starting-port", {
          type: "number",
          describe:
            "node i of a network listens on this port + 6i and the five after it (p2p, rpc, abci, api, grpc, telemetry); default: the Cosmos ports + 100i",
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
      let stakes: bigint[];
      try {
        blockTimeMs = parseGoDuration(args["block-time"]);
        balance = Coins.parse(args.balance);
        votingPeriodMs = parseGoDuration(args["voting-period"]);
        depositPeriodMs = parseGoDuration(args["deposit-period"]);
        Coins.parse(args["min-deposit"]);
        stakes = args.stake.split(",").map((v) => {
          if (!/^\d+$/.test(v.trim()) || BigInt(v.trim()) <= 0n)
            throw new Error(`--stake must be positive integers, got ${JSON.stringify(v)}`);
          return BigInt(v.trim());
        });
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      if (!Number.isInteger(args.keys) || args.keys < 0 || args.keys > 100)
        throw new CliError("--keys must be an integer from 0 to 100");
      const keyNames = Array.from({ length: args.keys }, (_, i) => NAMES[i] ?? `user${i + 1}`);
      const gov = { votingPeriodMs, depositPeriodMs, minDeposit: args["min-deposit"] };
      if (args.validators !== 1 || args["output-dir"] !== undefined) {
        if (!Number.isInteger(args.validators) || args.validators < 1 || args.validators > 100)
          throw new CliError("--validators must be an integer from 1 to 100");
        if (stakes.length !== 1 && stakes.length !== args.validators)
          throw new CliError(`--stake names ${stakes.length} amounts for ${args.validators} validators`);
        const start = args["starting-port"];
        if (start !== undefined && (!Number.isInteger(start) || start < 1 || start > 65535))
          throw new CliError("--starting-port must be a port number");
        let network: NetworkDescription;
        try {
          network = await writeNetworkHomes(
            {
              outputDir: args["output-dir"] ?? "mytestnet",
              nodeDirPrefix: args["node-dir-prefix"],
              chainId: args["chain-id"],
              bech32Prefix: args["bech32-prefix"],
              stakes: Array.from({ length: args.validators }, (_, i) => stakes[i] ?? stakes[0]),
              keyNames,
              balance,
              blockTimeMs,
              gov,
              basePorts:
                start === undefined
                  ? DEFAULT_NETWORK_PORTS
                  : {
                      p2p: start,
                      rpc: start + 1,
                      abci: start + 2,
                      api: start + 3,
                      grpc: start + 4,
                      telemetry: start + 5,
                    },
              portStep: start === undefined ? 100 : 6,
              overwrite: args.overwrite,
            },
            def,
          );
        } catch (e) {
          if (e instanceof HomeExistsError || e instanceof InitHomeError || e instanceof NetworkPortsError)
            throw new CliError(e.message);
          throw e;
        }
        process.stderr.write(
          `keyring-backend "test": the keys of these homes are stored unencrypted in each home's keyring-test, for testing only\n`,
        );
        process.stdout.write(`${JSON.stringify(network, null, 2)}\n`);
        return;
      }
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
      const names = ["validator", ...keyNames];
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
            amount: stakes[0],
          });
        keys.push({ name, address: info.address, mnemonic });
      }
      setGovPeriods(result.genesis, gov);
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
