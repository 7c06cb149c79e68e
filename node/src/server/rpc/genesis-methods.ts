import type { ChainNode } from "../../chain/chain-node.js";
import { validatorJson } from "./comet-json.js";
import { GenesisAppState } from "./genesis-app-state.js";
import { GenesisChunks } from "./genesis-chunks.js";
import { JsonRpcError } from "./json-rpc-error.js";
import { JsonText, type RpcMethod } from "./json-rpc-server.js";
import { optInt } from "./rpc-params.js";

/** `genesis` and `genesis_chunked`: genesis.json whole (16 MiB at most) or in CometBFT's chunks. */
export function genesisMethods(node: ChainNode): Record<string, RpcMethod> {
  const genesisChunks = new GenesisChunks(node.layout.genesisJson);
  const genesisAppState = new GenesisAppState(node.layout.genesisJson);
  return {
    genesis: {
      params: [],
      run: async () => {
        // Checked on the file's size, so a huge genesis is never read for an answer that cannot be sent.
        if (genesisChunks.total() > 1)
          throw JsonRpcError.internal(
            "genesis response is large, please use the genesis_chunked API instead",
          );
        const head = JSON.stringify({
          genesis_time: node.genesis.genesis_time,
          chain_id: node.genesis.chain_id,
          initial_height: String(node.genesis.initial_height),
          consensus_params: node.genesis.consensus.params,
          validators: [
            {
              ...validatorJson(node.signer, node.votingPower()),
              power: String(node.votingPower()),
              name: node.nodeConfig.moniker,
            },
          ],
          app_hash: "",
        });
        return new JsonText(`{"genesis":${head.slice(0, -1)},"app_state":${await genesisAppState.text()}}}`);
      },
    },
    genesis_chunked: {
      params: ["chunk"],
      run: async (p) => {
        const chunk = optInt(p, "chunk") ?? 0;
        if (chunk < 0) throw JsonRpcError.invalidParams(`chunk must not be negative, got ${chunk}`);
        return genesisChunks.chunk(chunk);
      },
    },
  };
}
