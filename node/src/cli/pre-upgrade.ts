import { silentLogger } from "@chaind/core/logger";
import type { CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import { readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import { pruningOptions } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import { StoreLockedError } from "../store/store-errors.js";
import type { ChainProgram } from "./chain-program.js";
import type { GlobalArgs } from "./global-options.js";

/** The supervisor's pre-upgrade protocol (cosmovisor): 0 done, 1 not supported, 30 failed, 31 retry. */
export const PRE_UPGRADE_EXIT = { ok: 0, failed: 30, retry: 31 } as const;

/**
 * What the new binary checks before it first starts on an upgraded home. Nothing needs migrating outside the
 * chain here (the upgrade handler does that in the upgrade block), so it checks what `start` will read first:
 * the home's config is readable by this version and the old node has let go of the database. It loads no
 * module of the app: visor runs it on every upgrade, inside the downtime.
 */
export async function runPreUpgrade(p: Pick<ChainProgram, "name" | "version">, home: string): Promise<void> {
  const layout = new HomeLayout(home);
  let store: StateStore | undefined;
  try {
    const { app } = readHomeConfig(layout);
    store = await StateStore.open(
      { dir: layout.dbDir, pruning: pruningOptions(app) },
      { logger: silentLogger },
    );
    process.stdout.write(
      `pre-upgrade: ${p.name} ${p.version} can take over at height ${store.latestHeight}\n`,
    );
  } catch (e) {
    if (e instanceof StoreLockedError)
      throw new CliError(`pre-upgrade: ${e.message}; retry later`, PRE_UPGRADE_EXIT.retry);
    throw new CliError(`pre-upgrade: ${(e as Error).message}`, PRE_UPGRADE_EXIT.failed);
  } finally {
    await store?.close();
  }
}

/** `chaind pre-upgrade` (cosmovisor's protocol): exit 0 ok, 30 failed, 31 retry. */
export function preUpgradeCommand(
  p: Pick<ChainProgram, "name" | "version">,
): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "pre-upgrade",
    describe: "Check the home before this binary takes over an upgrade (exit 0 ok, 30 failed, 31 retry)",
    handler: (args) => runPreUpgrade(p, args.home),
  };
}
