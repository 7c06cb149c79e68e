import { defaultNodeConfig } from "../config/node-config.js";
import type { ConcurrencyGateOptions } from "./concurrency-gate.js";

/**
 * The gas a simulation may use when neither the block (`max_gas` in the genesis consensus params) nor app.toml
 * (`query-gas-limit`) sets a limit. Cosmos lets such a simulation run unbounded; on this single-threaded node that
 * would let one request take the CPU from block production. 10M gas is roughly 100-200 ms of work here, and far
 * above any tx of the standard modules (a MsgSend costs about 12k gas, a tx of MAX_TX_MSGS sends about 3M).
 */
export const DEFAULT_SIMULATION_GAS_LIMIT = 10_000_000;

/**
 * Messages one tx may carry into CheckTx or a simulation (delivery in a block does not check it, so it is node
 * policy, not consensus). Cosmos has no such limit and relies on gas, but gas does not pay for decoding messages,
 * finding their signers and building their events, and on this node each message of a simulation costs event-loop
 * time that block production needs. 256 is far above what wallets send in one tx.
 */
export const MAX_TX_MSGS = 256;

/**
 * Simulations that run at once, and how many more may wait; the next one is refused as "too many simulations in
 * flight" (gRPC RESOURCE_EXHAUSTED, HTTP 429). The node is single-threaded: two at a time keep the CPU busy while
 * one waits for LevelDB, and a short line keeps what a burst holds in memory (its tx bytes) small.
 */
export const SIMULATION_CONCURRENCY: ConcurrencyGateOptions = { running: 2, waiting: 16 };

export interface SimulationLimits {
  /** The gas one simulation may use; it stops with "out of gas" as soon as it passes this. */
  gasLimit: number;
  /** Where gasLimit comes from, as the out-of-gas error names it. */
  gasLimitName: string;
  /** Larger txs could never enter the mempool: they are refused before any work (mempool.max_tx_bytes). */
  maxTxBytes: number;
}

/** The tightest of the block gas limit and app.toml's query-gas-limit, or the default when neither is set. */
export function simulationLimits(opts: {
  /** Genesis `consensus.params.block.max_gas`: "-1" (or 0) means none. */
  blockMaxGas: string;
  /** app.toml `query-gas-limit`: 0 means none. */
  queryGasLimit: number;
  maxTxBytes: number;
}): SimulationLimits {
  const set: { gasLimit: number; gasLimitName: string }[] = [];
  const blockMaxGas = Number(opts.blockMaxGas);
  if (Number.isSafeInteger(blockMaxGas) && blockMaxGas > 0)
    set.push({
      gasLimit: blockMaxGas,
      gasLimitName: "simulation gas limit (max_gas of the block in the genesis consensus params)",
    });
  if (opts.queryGasLimit > 0)
    set.push({
      gasLimit: opts.queryGasLimit,
      gasLimitName: "simulation gas limit (query-gas-limit in app.toml)",
    });
  const gas = set.sort((a, b) => a.gasLimit - b.gasLimit)[0] ?? {
    gasLimit: DEFAULT_SIMULATION_GAS_LIMIT,
    gasLimitName:
      "simulation gas limit (the node's default when neither max_gas nor query-gas-limit in app.toml is set)",
  };
  return { ...gas, maxTxBytes: opts.maxTxBytes };
}

/** The limits of a node without a block gas limit or query-gas-limit, and with CometBFT's max_tx_bytes. */
export function defaultSimulationLimits(): SimulationLimits {
  return simulationLimits({
    blockMaxGas: "-1",
    queryGasLimit: 0,
    maxTxBytes: defaultNodeConfig("node").mempool.maxTxBytes,
  });
}
