import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Plan, PlanSchema } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import type { Context } from "../../app/context.js";
import type { ModuleVersionMap as VersionMap } from "../../app/module-migrations.js";
import type { StateStore } from "../../store/state-store.js";
import { readUint64, uint64Bytes } from "../../store/uint64-bytes.js";

export const UPGRADE_STORE = "upgrade";

/** Cosmos x/upgrade's key layout. */
export const UpgradeKeys = {
  /** 0x00 -> Plan */
  plan: 0x00,
  /** 0x01 | big-endian height | name -> height (done markers) */
  done: 0x01,
  /** 0x02 | module name -> big-endian uint64 consensus version */
  versions: 0x02,
  /** 0x03 -> big-endian uint64 protocol version */
  protocol: 0x03,
} as const;

const text = new TextEncoder();
const untext = new TextDecoder();

export class UpgradeKeeper {
  async getPlan(ctx: Context): Promise<Plan | undefined> {
    const v = await ctx.kv(UPGRADE_STORE).get(Uint8Array.of(UpgradeKeys.plan));
    return v && fromBinary(PlanSchema, v);
  }

  setPlan(ctx: Context, plan: Plan): void {
    ctx.kv(UPGRADE_STORE).set(Uint8Array.of(UpgradeKeys.plan), toBinary(PlanSchema, plan));
  }

  clearPlan(ctx: Context): void {
    ctx.kv(UPGRADE_STORE).delete(Uint8Array.of(UpgradeKeys.plan));
  }

  setDone(ctx: Context, name: string, height: bigint): void {
    const key = new Uint8Array([UpgradeKeys.done, ...uint64Bytes(height), ...text.encode(name)]);
    ctx.kv(UPGRADE_STORE).set(key, uint64Bytes(height));
  }

  /** Every applied upgrade as (name, height), in height order. */
  async *doneMarkers(ctx: Context): AsyncIterable<{ name: string; height: bigint }> {
    for await (const [k] of ctx.kv(UPGRADE_STORE).iterate({ prefix: Uint8Array.of(UpgradeKeys.done) }))
      yield { height: readUint64(k, 1), name: untext.decode(k.subarray(9)) };
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
    for await (const [k, v] of ctx.kv(UPGRADE_STORE).iterate({ prefix: Uint8Array.of(UpgradeKeys.versions) }))
      out.set(untext.decode(k.subarray(1)), readUint64(v));
    return out;
  }

  async setVersionMap(ctx: Context, vm: VersionMap): Promise<void> {
    const store = ctx.kv(UPGRADE_STORE);
    const stale: Uint8Array[] = [];
    for await (const [k] of store.iterate({ prefix: Uint8Array.of(UpgradeKeys.versions) }))
      if (!vm.has(untext.decode(k.subarray(1)))) stale.push(k);
    for (const k of stale) store.delete(k);
    for (const [name, v] of vm)
      store.set(new Uint8Array([UpgradeKeys.versions, ...text.encode(name)]), uint64Bytes(v));
  }

  async getProtocolVersion(ctx: Context): Promise<bigint> {
    const v = await ctx.kv(UPGRADE_STORE).get(Uint8Array.of(UpgradeKeys.protocol));
    return v ? readUint64(v) : 0n;
  }

  setProtocolVersion(ctx: Context, v: bigint): void {
    ctx.kv(UPGRADE_STORE).set(Uint8Array.of(UpgradeKeys.protocol), uint64Bytes(v));
  }
}

/** The protocol version in committed state, read before the App runs (it is the ABCI app version). */
export async function readProtocolVersion(state: StateStore): Promise<bigint> {
  const v = await state.get(UPGRADE_STORE, Uint8Array.of(UpgradeKeys.protocol));
  return v ? readUint64(v) : 0n;
}
