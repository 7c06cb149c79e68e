import { create } from "@bufbuild/protobuf";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import {
  type Msg,
  MsgCancelUpgradeResponseSchema,
  MsgSoftwareUpgradeResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import type { Plan } from "@chaind/proto/sdk/upgrade/v1beta1/upgrade_pb";
import type { Context } from "../../app/context.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ZERO_TIME_JSON } from "../../app/zero-timestamps.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { UpgradeErrors, upgradeError } from "./upgrade-errors.js";
import type { UpgradeKeeper } from "./upgrade-keeper.js";

const invalid = (why: string) => ChainError.wrap(SdkErrors.InvalidRequest, why);

/** Cosmos' ScheduleUpgrade rules; a valid plan replaces whatever was scheduled (delay or hasten). */
export async function scheduleUpgrade(
  ctx: Context,
  keeper: UpgradeKeeper,
  plan: Plan | undefined,
): Promise<void> {
  if (!plan) throw invalid("plan cannot be empty");
  if (!plan.name.trim()) throw invalid("name cannot be empty");
  if (plan.height <= 0n) throw invalid("height must be greater than 0");
  if (plan.time && timestampDate(plan.time).getTime() > new Date(ZERO_TIME_JSON).getTime())
    throw invalid("time-based upgrades have been deprecated in the SDK");
  if (plan.upgradedClientState) throw invalid("upgrade logic for IBC has been moved to the IBC module");
  if (plan.height <= BigInt(ctx.block.height)) throw invalid("upgrade cannot be scheduled in the past");
  if ((await keeper.doneHeight(ctx, plan.name)) > 0n)
    throw invalid(`upgrade with name ${plan.name} has already been completed`);
  keeper.setPlan(ctx, plan);
  ctx.logger.info("upgrade scheduled", { name: plan.name, height: String(plan.height) });
}

/** MsgSoftwareUpgrade and MsgCancelUpgrade: only the gov module account may send them. */
export function upgradeMsgServer(keeper: UpgradeKeeper, authority: string): ServiceImpl<typeof Msg> {
  const checkAuthority = (got: string) => {
    if (got !== authority)
      throw upgradeError(UpgradeErrors.InvalidSigner, `expected ${authority} got ${got}`);
  };
  return {
    async softwareUpgrade(ctx, msg) {
      checkAuthority(msg.authority);
      await scheduleUpgrade(ctx, keeper, msg.plan);
      return create(MsgSoftwareUpgradeResponseSchema);
    },
    async cancelUpgrade(ctx, msg) {
      checkAuthority(msg.authority);
      keeper.clearPlan(ctx);
      ctx.logger.info("upgrade plan cancelled");
      return create(MsgCancelUpgradeResponseSchema);
    },
  };
}
