import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type Redelegation,
  RedelegationEntrySchema,
  RedelegationSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import type { Context } from "../../app/context.js";
import { formatDecWire } from "../../app/dec.js";
import { STAKING_STORE, StakingKeys } from "./staking-keys.js";

/**
 * The redelegation records of x/staking: one per (delegator, source, destination) with an entry per
 * redelegation still inside its unbonding time, an index by destination (for the transitive rule) and a queue
 * by completion time. Nothing is slashed here, so an entry only marks time; the stake moved at once.
 */
export class Redelegations {
  async get(
    ctx: Context,
    del: Uint8Array,
    src: Uint8Array,
    dst: Uint8Array,
  ): Promise<Redelegation | undefined> {
    const v = await ctx.kv(STAKING_STORE).get(StakingKeys.redelegation.encode([del, src, dst]));
    return v && fromBinary(RedelegationSchema, v);
  }

  /** Whether the delegator has stake still arriving at `validator` (it may not move on from there yet). */
  async isReceiving(ctx: Context, del: Uint8Array, validator: Uint8Array): Promise<boolean> {
    const prefix = StakingKeys.redelegationByDst.prefixOf(validator, del);
    for await (const _ of ctx.kv(STAKING_STORE).iterate({ prefix })) return true;
    return false;
  }

  async *all(ctx: Context): AsyncIterable<Redelegation> {
    for await (const [, v] of ctx.kv(STAKING_STORE).iterate({ prefix: StakingKeys.redelegation.prefix }))
      yield fromBinary(RedelegationSchema, v);
  }

  /** Genesis: a redelegation as exported, with its index and an entry in the queue for each of its entries. */
  import(
    ctx: Context,
    red: Redelegation,
    addrs: { del: Uint8Array; src: Uint8Array; dst: Uint8Array },
  ): void {
    this.set(ctx, red, addrs);
    for (const e of red.entries) {
      const completion = e.completionTime ? timestampDate(e.completionTime) : new Date(0);
      ctx
        .kv(STAKING_STORE)
        .set(
          StakingKeys.redelegationQueue.encode([completion, addrs.del, addrs.src, addrs.dst]),
          new Uint8Array(),
        );
    }
  }

  addEntry(
    ctx: Context,
    red: Redelegation,
    addrs: { del: Uint8Array; src: Uint8Array; dst: Uint8Array },
    entry: { height: number; completion: Date; tokens: bigint; shares: bigint },
  ): void {
    red.entries.push(
      create(RedelegationEntrySchema, {
        creationHeight: BigInt(entry.height),
        completionTime: timestampFromDate(entry.completion),
        initialBalance: entry.tokens.toString(),
        sharesDst: formatDecWire(entry.shares),
      }),
    );
    this.set(ctx, red, addrs);
    ctx
      .kv(STAKING_STORE)
      .set(
        StakingKeys.redelegationQueue.encode([entry.completion, addrs.del, addrs.src, addrs.dst]),
        new Uint8Array(),
      );
  }

  /** Drops the entries whose time has come (EndBlock), and records left without entries. */
  async completeDue(ctx: Context): Promise<Redelegation[]> {
    const now = ctx.block.time.getTime();
    const store = ctx.kv(STAKING_STORE);
    const due: { key: Uint8Array; del: Uint8Array; src: Uint8Array; dst: Uint8Array }[] = [];
    for await (const [key] of store.iterate({ prefix: StakingKeys.redelegationQueue.prefix })) {
      const [completion, del, src, dst] = StakingKeys.redelegationQueue.decode(key);
      if (completion.getTime() > now) break;
      due.push({ key, del, src, dst });
    }
    const completed: Redelegation[] = [];
    for (const { key, ...addrs } of due) {
      store.delete(key);
      const red = await this.get(ctx, addrs.del, addrs.src, addrs.dst);
      if (!red) continue;
      const before = red.entries.length;
      red.entries = red.entries.filter(
        (e) => !e.completionTime || timestampDate(e.completionTime).getTime() > now,
      );
      if (red.entries.length !== before) completed.push(red);
      this.set(ctx, red, addrs);
    }
    return completed;
  }

  private set(
    ctx: Context,
    red: Redelegation,
    a: { del: Uint8Array; src: Uint8Array; dst: Uint8Array },
  ): void {
    const store = ctx.kv(STAKING_STORE);
    const key = StakingKeys.redelegation.encode([a.del, a.src, a.dst]);
    const index = StakingKeys.redelegationByDst.encode([a.dst, a.del, a.src]);
    if (red.entries.length === 0) {
      store.delete(key);
      store.delete(index);
    } else {
      store.set(key, toBinary(RedelegationSchema, red));
      store.set(index, new Uint8Array());
    }
  }
}
