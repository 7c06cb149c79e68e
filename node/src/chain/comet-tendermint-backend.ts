import { NodeCallError, type NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { validatorsFromJson } from "../consensus/light-block-json.js";
import type { WeightedValidator } from "../consensus/validator-set-hash.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { blockFromJson } from "./comet-rpc-json.js";
import type { TendermintBackend } from "./tendermint-service.js";

interface CometStatus {
  sync_info: { latest_block_height: string; catching_up: boolean };
}

async function ask<T>(rpc: NodeRpcClient, method: string, params: Record<string, unknown> = {}): Promise<T> {
  try {
    return await rpc.call<T>(method, params);
  } catch (e) {
    if (e instanceof NodeCallError)
      throw ChainError.wrap(SdkErrors.InvalidRequest, `CometBFT answered: ${e.message}`);
    throw e;
  }
}

/** The tendermint service's blocks and validators when CometBFT makes the blocks: CometBFT's RPC's. */
export function cometTendermintBackend(rpc: NodeRpcClient): TendermintBackend {
  const status = () => ask<CometStatus>(rpc, "status");
  return {
    latestHeight: async () => Number((await status()).sync_info.latest_block_height),
    block: async (height) => {
      try {
        return blockFromJson(await rpc.call("block", { height: String(height) }));
      } catch (e) {
        if (e instanceof NodeCallError && /height|not available|bigger/.test(e.message)) return undefined;
        if (e instanceof NodeCallError)
          throw ChainError.wrap(SdkErrors.InvalidRequest, `CometBFT answered: ${e.message}`);
        throw e;
      }
    },
    validators: async () => {
      const validators: WeightedValidator[] = [];
      let height = 0;
      for (let page = 1; page <= 100; page++) {
        const r = await ask<{ block_height: string; total: string }>(rpc, "validators", {
          page: String(page),
          per_page: "100",
        });
        height = Number(r.block_height);
        const got = validatorsFromJson(r);
        validators.push(...got);
        if (got.length === 0 || validators.length >= Number(r.total)) break;
      }
      return { height, validators };
    },
    syncing: async () => (await status()).sync_info.catching_up,
  };
}
