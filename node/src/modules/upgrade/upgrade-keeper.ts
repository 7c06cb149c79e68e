import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Plan, PlanSchema } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import type { Context } from "../../app/context.js";
import type { ModuleVersionMap as VersionMap } from "../../app/module-migrations.js";
import type { StateStore } from "../../store/state-store.js";
import { uint64Key } from "../../store/uint-keys.js";
import { UpgradeKeys } from "./upgrade-keys.js";

export const UPGRADE_STORE = "upgrade";

export class UpgradeKeeper {
  async getPlan(ctx: Context): Promise<Plan | undefined> {
    const v = await ctx.kv(UPGRADE_STORE).get(UpgradeKeys.plan);
    return v && fromBinary(PlanSchema, v);
  }

  setPlan(ctx: Context, plan: Plan): void {
    ctx.kv(UPGRADE_STORE).set(UpgradeKeys.plan, toBinary(PlanSchema, plan));
  }

  clearPlan(ctx: Context): void {
    ctx.kv(UPGRADE_STORE).delete(UpgradeKeys.plan);
  }

  /** Marks the plan applied at `height`, and keeps it whole. */
  setDone(ctx: Context, plan: Plan, height: bigint): void {
    const store = ctx.kv(UPGRADE_STORE);
    store.set(UpgradeKeys.done.encode([height, plan.name]), uint64Key.encode(height));
    store.set(UpgradeKeys.appliedPlans.encode(plan.name), toBinary(PlanSchema, plan));
  }

  /** An applied plan as it was scheduled; undefined when it was not applied (or by a binary that kept none). */
  async appliedPlan(ctx: Context, name: string): Promise<Plan | undefined> {
    const v = await ctx.kv(UPGRADE_STORE).get(UpgradeKeys.appliedPlans.encode(name));
    return v && fromBinary(PlanSchema, v);
  }

  /** Every applied upgrade as (name, height), in height order. */
  async *doneMarkers(ctx: Context): AsyncIterable<{ name: string; height: bigint }> {
    for await (const [k] of ctx.kv(UPGRADE_STORE).iterate({ prefix: UpgradeKeys.done.prefix })) {
      const [height, name] = UpgradeKeys.done.decode(k);
      yield { height, name };
    }
  }

  /** The height at which `name` was applied, 0 when it never was. */
  async doneHeight(ctx: Context, name: string): Promise<bigint> {
    for await (const d of this.doneMarkers(ctx)) if (d.name === name) return d.height;
    return 0n;
  }

  async lastCompleted(ctx: Context): Promise<{ name: string; height: bigint } | undefined> {
    let last: { name: string; height: bigint } | undefined;
    for await (const d of this.doneMarkers(ctx)) last = d;
    return last;
  }

  async getVersionMap(ctx: Context): Promise<VersionMap> {
    const out: VersionMap = new Map();
    for await (const [k, v] of ctx.kv(UPGRADE_STORE).iterate({ prefix: UpgradeKeys.versions.prefix }))
      out.set(UpgradeKeys.versions.decode(k), uint64Key.decode(v));
    return out;
  }

  async setVersionMap(ctx: Context, vm: VersionMap): Promise<void> {
    const store = ctx.kv(UPGRADE_STORE);
    const stale: Uint8Array[] = [];
    for await (const [k] of store.iterate({ prefix: UpgradeKeys.versions.prefix }))
      if (!vm.has(UpgradeKeys.versions.decode(k))) stale.push(k);
    for (const k of stale) store.delete(k);
    for (const [name, v] of vm) store.set(UpgradeKeys.versions.encode(name), uint64Key.encode(v));
  }

  async getProtocolVersion(ctx: Context): Promise<bigint> {
    const v = await ctx.kv(UPGRADE_STORE).get(UpgradeKeys.protocol);
    return v ? uint64Key.decode(v) : 0n;
  }

  setProtocolVersion(ctx: Context, v: bigint): void {
    ctx.kv(UPGRADE_STORE).set(UpgradeKeys.protocol, uint64Key.encode(v));
  }
}

/** The protocol version in committed state, read before the App runs (it is the ABCI app version). */
export async function readProtocolVersion(state: StateStore): Promise<bigint> {
  const v = await state.get(UPGRADE_STORE, UpgradeKeys.protocol);
  return v ? uint64Key.decode(v) : 0n;
}
