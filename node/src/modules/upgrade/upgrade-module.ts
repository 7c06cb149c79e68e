import { create, type JsonValue } from "@bufbuild/protobuf";
import { file_sdk_upgrade_v1beta1_query, Query } from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { file_sdk_upgrade_v1beta1_tx, Msg } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { file_sdk_upgrade_v1beta1_upgrade, PlanSchema } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import type { AppModule } from "../../app/app-module.js";
import type { Context } from "../../app/context.js";
import type { ModuleCliContext, ModuleCommand } from "../../app/module-command.js";
import { runMigrations } from "../../app/module-migrations.js";
import type { ServiceRegistrar } from "../../app/service-registrar.js";
import type { TestnetConversion } from "../../app/testnet-conversion.js";
import { deleteStore, renameStore } from "../../store/store-upgrades.js";
import { UPGRADE_AMINO_TYPES } from "./upgrade-amino.js";
import { upgradeQueryCommand, upgradeTxCommand } from "./upgrade-cli.js";
import { UpgradeHaltError } from "./upgrade-halt.js";
import type { StoreUpgrades, UpgradeRegistry } from "./upgrade-handlers.js";
import { writeUpgradeInfo } from "./upgrade-info-file.js";
import { UPGRADE_STORE, type UpgradeKeeper } from "./upgrade-keeper.js";
import { upgradeMsgServer } from "./upgrade-msg-server.js";
import { upgradeQueryServer } from "./upgrade-query-server.js";

export interface UpgradeModuleOptions {
  authority: string;
  /** This binary's handlers and store upgrades, by plan name. */
  registry: UpgradeRegistry;
  /** `<home>/data`, where a halting binary writes upgrade-info.json; absent when no node runs (init, checks). */
  dataDir?: string;
  /** Plan heights to skip (`chaind start --unsafe-skip-upgrades`). */
  skipHeights: ReadonlySet<number>;
  /** Every module of the app, for the version map and migrations. */
  modules: () => readonly AppModule[];
  /** Told the protocol version after each upgrade (it is the ABCI app version). */
  onProtocolVersion?: (v: bigint) => void;
}

/**
 * x/upgrade: keeps the scheduled plan and, before each block, halts the node at the plan height, applies
 * the plan when this binary has its handler, or refuses to run a binary that is too new or too old.
 * It emits no events of its own: governance does.
 */
export class UpgradeModule implements AppModule {
  readonly name = "upgrade";
  readonly consensusVersion = 3;
  readonly storeKeys = [UPGRADE_STORE];
  readonly aminoTypes = UPGRADE_AMINO_TYPES;
  readonly protoFiles = [
    file_sdk_upgrade_v1beta1_upgrade,
    file_sdk_upgrade_v1beta1_query,
    file_sdk_upgrade_v1beta1_tx,
  ];
  private downgradeChecked = false;

  constructor(
    readonly keeper: UpgradeKeeper,
    private readonly opts: UpgradeModuleOptions,
  ) {}

  defaultGenesis(): JsonValue {
    return {};
  }

  /** The upgrade module has no genesis state; it records every module's version at chain start. */
  async initGenesis(ctx: Context): Promise<void> {
    await this.keeper.setVersionMap(
      ctx,
      new Map(this.opts.modules().map((m) => [m.name, BigInt(m.consensusVersion)])),
    );
  }

  registerServices(r: ServiceRegistrar): void {
    r.msgService(Msg, upgradeMsgServer(this.keeper, this.opts.authority));
    r.queryService(Query, upgradeQueryServer(this.keeper, this.opts.authority));
  }

  txCommand(ctx: ModuleCliContext): ModuleCommand {
    return upgradeTxCommand(ctx.types);
  }

  queryCommand(ctx: ModuleCliContext): ModuleCommand {
    return upgradeQueryCommand(ctx.types);
  }

  /** `--trigger-testnet-upgrade`: the plan is due in the testnet's first block, as if governance had passed it. */
  async convertToTestnet(ctx: Context, t: TestnetConversion): Promise<void> {
    if (t.upgradeToTrigger === undefined) return;
    if ((await this.keeper.doneHeight(ctx, t.upgradeToTrigger)) > 0n)
      throw new Error(`upgrade "${t.upgradeToTrigger}" has already been completed on this chain`);
    // The chain's own plan of that name keeps its info (where its binary is), so a supervisor can fetch and
    // verify it at the testnet's halt as at the real one; the SDK leaves info empty.
    const scheduled = await this.keeper.getPlan(ctx);
    const info = scheduled?.name === t.upgradeToTrigger ? scheduled.info : "";
    this.keeper.setPlan(
      ctx,
      create(PlanSchema, { name: t.upgradeToTrigger, height: BigInt(ctx.block.height), info }),
    );
  }

  async haltsAt(ctx: Context): Promise<boolean> {
    const plan = await this.keeper.getPlan(ctx);
    return (
      plan !== undefined &&
      plan.height <= BigInt(ctx.block.height) &&
      !this.opts.skipHeights.has(Number(plan.height)) &&
      !this.opts.registry.handlers[plan.name]
    );
  }

  /**
   * The chain went through an upgrade this binary has no handler for: it is too old for the state (a node
   * state-synced past the upgrade, or a binary put back by hand). As the SDK, it refuses to run; and when the plan
   * was kept, it writes it to upgrade-info.json as at the halt, so a supervisor installs the binary the chain
   * runs now and starts again.
   */
  private async refuseOlderBinary(ctx: Context, last: { name: string; height: bigint }): Promise<never> {
    const message = `wrong app version, upgrade handler is missing for ${last.name} upgrade plan`;
    const plan = await this.keeper.appliedPlan(ctx, last.name);
    if (!plan || !this.opts.dataDir) throw new UpgradeHaltError("DOWNGRADE", message);
    writeUpgradeInfo(this.opts.dataDir, plan, last.height);
    const needed = `${message}: the chain applied it at height ${last.height}; UPGRADE "${plan.name}" NEEDED: ${plan.info}`;
    ctx.logger.error(needed);
    throw new UpgradeHaltError("UPGRADE_NEEDED", needed);
  }

  async preBlock(ctx: Context): Promise<void> {
    const height = BigInt(ctx.block.height);
    const plan = await this.keeper.getPlan(ctx);
    const due = plan !== undefined && plan.height <= height;
    const { handlers, storeUpgrades = {} } = this.opts.registry;

    if (!this.downgradeChecked) {
      this.downgradeChecked = true;
      const last = due ? undefined : await this.keeper.lastCompleted(ctx);
      if (last && !handlers[last.name]) await this.refuseOlderBinary(ctx, last);
    }
    if (!plan) return;

    if (!due) {
      if (handlers[plan.name])
        throw new UpgradeHaltError(
          "BINARY_TOO_EARLY",
          `BINARY UPDATED BEFORE TRIGGER! UPGRADE "${plan.name}" - in binary but not executed on chain. Downgrade your binary`,
        );
      return;
    }

    if (this.opts.skipHeights.has(Number(plan.height))) {
      ctx.logger.info(`UPGRADE "${plan.name}" SKIPPED at ${plan.height}: ${plan.info}`);
      this.keeper.clearPlan(ctx);
      return;
    }

    const handler = handlers[plan.name];
    if (!handler) {
      const message = `UPGRADE "${plan.name}" NEEDED at height: ${height}: ${plan.info}`;
      if (this.opts.dataDir) writeUpgradeInfo(this.opts.dataDir, plan, height);
      ctx.logger.error(message);
      throw new UpgradeHaltError("UPGRADE_NEEDED", message);
    }

    ctx.logger.info(`applying upgrade "${plan.name}" at height: ${height}`);
    await applyStoreUpgrades(ctx, storeUpgrades[plan.name]);
    const fromVM = await this.keeper.getVersionMap(ctx);
    const modules = this.opts.modules();
    const newVM = await handler(ctx, plan, fromVM, (vm) => runMigrations(ctx, modules, vm));
    await this.keeper.setVersionMap(ctx, newVM);
    const protocol = (await this.keeper.getProtocolVersion(ctx)) + 1n;
    this.keeper.setProtocolVersion(ctx, protocol);
    this.keeper.clearPlan(ctx);
    this.keeper.setDone(ctx, plan, height);
    this.opts.onProtocolVersion?.(protocol);
  }
}

/** The store loader's work, done inside the upgrade block so it commits (once) with the handler's writes. */
async function applyStoreUpgrades(ctx: Context, su: StoreUpgrades | undefined): Promise<void> {
  for (const r of su?.renamed ?? []) {
    const moved = await renameStore(ctx.ms, r.oldKey, r.newKey);
    ctx.logger.info("renamed store", { from: r.oldKey, to: r.newKey, keys: moved });
  }
  for (const name of su?.deleted ?? []) {
    const removed = await deleteStore(ctx.ms, name);
    ctx.logger.info("deleted store", { store: name, keys: removed });
  }
  for (const name of su?.added ?? []) ctx.logger.info("added store", { store: name });
}
