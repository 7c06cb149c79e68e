import { silentLogger } from "@chaind/core/logger";
import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { CliError } from "../client/cli-error.js";
import { readGenesis } from "../config/genesis.js";
import { readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import { pruningOptions } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import { StoreLockedError } from "../store/store-errors.js";
import type { GlobalArgs } from "./global-options.js";

/** The supervisor's pre-upgrade protocol (cosmovisor): 0 done, 1 not supported, 30 failed, 31 retry. */
export const PRE_UPGRADE_EXIT = { ok: 0, failed: 30, retry: 31 } as const;

/**
 * `chaind pre-upgrade`: what the new binary checks before it first starts on an upgraded home. Nothing needs
 * migrating outside the chain here (the upgrade handler does that in the upgrade block), so it checks that the
 * home is readable by this version and that the old node has let go of the database.
 */
export function preUpgradeCommand(def: AppDefinition): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "pre-upgrade",
    describe: "Check the home before this binary takes over an upgrade (exit 0 ok, 30 failed, 31 retry)",
    handler: async (args) => {
      const layout = new HomeLayout(args.home);
      let store: StateStore | undefined;
      try {
        const { app } = readHomeConfig(layout);
        const genesis = readGenesis(layout.genesisJson);
        def.assemble({
          chainId: genesis.chain_id,
          bech32Prefix: genesis.bech32_prefix ?? "sdk",
          minGasPrices: app.minimumGasPrices,
        });
        store = await StateStore.open(
          {
            dir: layout.dbDir,
            pruning: pruningOptions(app),
          },
          { logger: silentLogger },
        );
        process.stdout.write(
          `pre-upgrade: ${def.name} ${def.version} can take over at height ${store.latestHeight}\n`,
        );
      } catch (e) {
        if (e instanceof StoreLockedError)
          throw new CliError(`pre-upgrade: ${e.message}; retry later`, PRE_UPGRADE_EXIT.retry);
        throw new CliError(`pre-upgrade: ${(e as Error).message}`, PRE_UPGRADE_EXIT.failed);
      } finally {
        await store?.close();
      }
    },
  };
}
