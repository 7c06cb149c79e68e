import type { Context } from "../app/context.js";
import type { StakingKeeper } from "../modules/staking/staking-keeper.js";

/**
 * What Cosmos' `export --for-zero-height` does to state before exporting it, for the modules this chain has
 * (no distribution or slashing, so nothing to withdraw or reset there): staking's unbonding and redelegation
 * entries and validators' unbonding heights start over at 0, and, when `jailAllowed` names any validators
 * (valoper addresses), every other validator is marked jailed. Writes go to the export's own branch of state,
 * never to the home's database.
 */
export async function prepareForZeroHeight(
  ctx: Context,
  staking: StakingKeeper,
  jailAllowed: readonly string[],
): Promise<void> {
  for (const a of jailAllowed) staking.valoper.fromString(a, "--jail-allowed-addrs entry");
  const allowed = new Set(jailAllowed);
  const unbondings = [];
  for await (const u of staking.allUnbondings(ctx)) unbondings.push(u);
  for (const u of unbondings) {
    for (const e of u.entries) e.creationHeight = 0n;
    staking.importUnbonding(ctx, u);
  }
  const redelegations = [];
  for await (const r of staking.redelegations.all(ctx)) redelegations.push(r);
  for (const r of redelegations) {
    for (const e of r.entries) e.creationHeight = 0n;
    staking.redelegations.import(ctx, r, {
      del: staking.addresses.fromString(r.delegatorAddress),
      src: staking.valoper.fromString(r.validatorSrcAddress),
      dst: staking.valoper.fromString(r.validatorDstAddress),
    });
  }
  const validators = [];
  for await (const v of staking.validators(ctx)) validators.push(v);
  for (const v of validators) {
    v.unbondingHeight = 0n;
    if (allowed.size > 0 && !allowed.has(v.operatorAddress)) v.jailed = true;
    staking.setValidator(ctx, v);
  }
}
