import { create } from "@bufbuild/protobuf";
import {
  ConfigResponseSchema,
  Service,
  StatusResponseSchema,
} from "@chaind/proto/sdk/base/node/v1beta1/query_pb";
import { type DecCoin, parseDecCoins } from "../app/dec-coins.js";
import type { ServiceRegistrar } from "../app/service-registrar.js";
import type { AppConfig } from "../config/app-config.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { TendermintBackend } from "./tendermint-service.js";

/** What the node service reports: app.toml's settings, the store's earliest height and the blocks. */
export interface NodeServiceDeps {
  appConfig: Pick<AppConfig, "minimumGasPrices" | "pruningKeepRecent" | "pruningInterval" | "haltHeight">;
  earliestHeight(): number;
  blocks: Pick<TendermintBackend, "block">;
}

/**
 * `sdk.base.node.v1beta1.Service`, as Cosmos SDK 0.50's node service answers it. Config: the minimum gas prices
 * as the SDK prints its DecCoins (18 decimals, by denom), app.toml's pruning-keep-recent and pruning-interval as
 * written, and halt-height. Status: at the query's height, that block's time, the app hash its header carries and
 * its header's next validators hash, with the earliest height whose state the node keeps (the SDK leaves that 0
 * until a later release fills it the same way).
 */
export function registerNodeService(registrar: ServiceRegistrar, deps: NodeServiceDeps): void {
  registrar.queryService(Service, {
    config: async () =>
      create(ConfigResponseSchema, {
        minimumGasPrice: parseDecCoins(deps.appConfig.minimumGasPrices)
          .sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0))
          .map(legacyDecCoin)
          .join(","),
        pruningKeepRecent: String(deps.appConfig.pruningKeepRecent),
        pruningInterval: String(deps.appConfig.pruningInterval),
        haltHeight: BigInt(deps.appConfig.haltHeight),
      }),
    status: async (ctx) => {
      const found = await deps.blocks.block(ctx.block.height);
      if (!found)
        throw ChainError.wrap(
          SdkErrors.InvalidHeight,
          `block ${ctx.block.height} is not available on this node`,
        );
      const h = found.block.header;
      return create(StatusResponseSchema, {
        earliestStoreHeight: BigInt(deps.earliestHeight()),
        height: BigInt(ctx.block.height),
        timestamp: h?.time,
        appHash: h?.appHash,
        validatorHash: h?.nextValidatorsHash,
      });
    },
  });
}

/** A price as the SDK's DecCoin prints it: a LegacyDec with 18 decimals, then the denom. */
function legacyDecCoin(c: DecCoin): string {
  const atto = (c.numerator * 10n ** 18n) / c.denominator;
  const frac = (atto % 10n ** 18n).toString().padStart(18, "0");
  return `${atto / 10n ** 18n}.${frac}${c.denom}`;
}
