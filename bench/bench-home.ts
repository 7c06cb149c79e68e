import { Coins } from "chaind/app/coins";
import { standardAppDefinition } from "chaind/chain/app-definition";
import { addGenesisAccounts } from "chaind/chain/genesis-accounts";
import { addGenesisValidator } from "chaind/chain/genesis-validators";
import { initHome, TESTNET_MIN_GAS_PRICE } from "chaind/chain/init-home";
import { writeGenesis } from "chaind/config/genesis";
import type { PruningStrategy } from "chaind/store/pruning";
import { benchAccount, fillerAddress } from "./bench-accounts.js";

export const BENCH_CHAIN_ID = "bench-chain";
export const BENCH_DEFINITION = standardAppDefinition("chaind", "0.0.0-bench");

export interface BenchHomeOptions {
  home: string;
  /** Funded accounts by address (keys held by the benchmark). */
  funded?: string[];
  /** Extra funded accounts with no key, to give the state a realistic size. */
  fillerAccounts?: number;
  timeoutCommitMs?: number;
  createEmptyBlocks?: boolean;
  maxBlockTxs?: number;
  mempoolSize?: number;
  pruning?: PruningStrategy;
  /**
   * The home's validator key bonded at genesis, as `chaind testnet` bonds it: CometBFT refuses a chain whose
   * InitChain names no validator; the embedded engine signs with the key either way.
   */
  genesisValidator?: boolean;
}

/** The genesis validator's self-delegation: power 100000, as `chaind testnet`'s validator. */
const VALIDATOR_STAKE = 100_000_000_000n;

/**
 * A node home with REST, gRPC and RPC on loopback ports the OS picks (the node logs them), funded accounts at
 * genesis, and the block time the benchmark wants.
 */
export function makeBenchHome(opts: BenchHomeOptions): void {
  const { layout, genesis, validatorPubKey } = initHome(
    {
      home: opts.home,
      moniker: "bench",
      chainId: BENCH_CHAIN_ID,
      bech32Prefix: "sdk",
      overwrite: false,
      // A local chain like `chaind testnet`'s: fees checked, the benchmark's 2000stake fees more than enough.
      minGasPrice: TESTNET_MIN_GAS_PRICE,
      tuneApp: (c) => {
        c.api.enable = true;
        c.api.address = "tcp://127.0.0.1:0";
        c.grpc.enable = true;
        c.grpc.address = "127.0.0.1:0";
        c.telemetry.address = "127.0.0.1:0";
        if (opts.pruning) c.pruning = opts.pruning;
      },
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = opts.timeoutCommitMs ?? 200;
        c.consensus.createEmptyBlocks = opts.createEmptyBlocks ?? true;
        if (opts.maxBlockTxs) c.consensus.maxBlockTxs = opts.maxBlockTxs;
        if (opts.mempoolSize) c.mempool.size = opts.mempoolSize;
        c.rpc.laddr = "tcp://127.0.0.1:0";
      },
    },
    BENCH_DEFINITION,
  );
  const operator = benchAccount("bench-validator").address;
  const addresses = [...(opts.funded ?? []), ...(opts.genesisValidator ? [operator] : [])];
  for (let i = 0; i < (opts.fillerAccounts ?? 0); i++) addresses.push(fillerAddress(i));
  const coins = Coins.parse("1000000000000stake");
  addGenesisAccounts(
    genesis,
    addresses.map((address) => ({ address, coins })),
    false,
  );
  if (opts.genesisValidator)
    addGenesisValidator(genesis, {
      operator,
      consensusPubKey: validatorPubKey,
      moniker: "bench",
      amount: VALIDATOR_STAKE,
    });
  writeGenesis(layout.genesisJson, genesis);
}
