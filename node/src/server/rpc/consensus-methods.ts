import type { ChainNode } from "../../chain/chain-node.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { type RoundState, roundStateJson, roundStateSimpleJson } from "./round-state-json.js";
import { heightParam } from "./rpc-params.js";

/**
 * `consensus_params`, `consensus_state` and `dump_consensus_state`: what the embedded engine's one validator
 * has. Its consensus params are genesis's (no module changes them); its round state is the wait for the next
 * block, and it has no peers.
 */
export function consensusMethods(node: ChainNode): Record<string, RpcMethod> {
  const { blocks, producer, signer } = node;

  async function roundState(): Promise<RoundState> {
    const latest = blocks.height;
    const meta = latest > 0 ? await blocks.meta(latest) : undefined;
    const time = meta?.header?.time;
    const commitTimeMs = time
      ? Number(time.seconds) * 1000 + Math.floor(time.nanos / 1e6)
      : Date.parse(node.genesis.genesis_time);
    return {
      height: latest > 0 ? latest + 1 : node.genesis.initial_height,
      commitTimeMs,
      startTimeMs: commitTimeMs + node.nodeConfig.consensus.timeoutCommitMs,
      validator: signer,
      votingPower: node.votingPower(),
      lastCommit: latest > 0 ? await producer.seenCommit(latest) : undefined,
    };
  }

  return {
    consensus_params: {
      params: ["height"],
      // As CometBFT, the height being worked on (the latest block's plus one) is the default and the highest.
      run: async (p) => ({
        block_height: String(heightParam(p, blocks.height + 1)),
        consensus_params: node.genesis.consensus.params,
      }),
    },
    consensus_state: {
      params: [],
      run: async () => ({ round_state: roundStateSimpleJson(await roundState()) }),
    },
    dump_consensus_state: {
      params: [],
      run: async () => ({ round_state: roundStateJson(await roundState()), peers: [] }),
    },
  };
}
