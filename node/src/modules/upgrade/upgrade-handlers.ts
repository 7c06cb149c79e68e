import type { Plan } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import type { Context } from "../../app/context.js";
import type { ModuleVersionMap as VersionMap } from "../../app/module-migrations.js";

/** Store edits an upgrade needs, applied in the upgrade block before its handler runs. */
export interface StoreUpgrades {
  added?: string[];
  renamed?: { oldKey: string; newKey: string }[];
  deleted?: string[];
}

/**
 * What an upgrade handler gets: the plan, the version map stored before the upgrade, and the module
 * manager's migrations to run from it (the usual body of a handler is `return runMigrations(fromVM)`).
 */
export type UpgradeHandler = (
  ctx: Context,
  plan: Plan,
  fromVM: VersionMap,
  runMigrations: (fromVM: VersionMap) => Promise<VersionMap>,
) => Promise<VersionMap>;

/** An app version's upgrades, by plan name: the handler it can apply and the store changes that go with it. */
export interface UpgradeRegistry {
  handlers: Readonly<Record<string, UpgradeHandler>>;
  storeUpgrades?: Readonly<Record<string, StoreUpgrades>>;
}
