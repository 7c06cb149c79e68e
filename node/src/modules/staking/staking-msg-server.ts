import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  type Msg,
  MsgBeginRedelegateResponseSchema,
  MsgCreateValidatorResponseSchema,
  MsgDelegateResponseSchema,
  MsgUndelegateResponseSchema,
} from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { Coins } from "../../app/coins.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { StakingKeeper } from "./staking-keeper.js";

const coinsOf = (c: { denom: string; amount: string } | undefined) => {
  if (!c) throw ChainError.wrap(SdkErrors.InvalidCoins, "amount is required");
  return Coins.from([c]);
};

export function stakingMsgServer(keeper: StakingKeeper): ServiceImpl<typeof Msg> {
  return {
    async createValidator(ctx, msg) {
      if (!msg.pubkey) throw ChainError.wrap(SdkErrors.InvalidPubKey, "empty validator public key");
      await keeper.createValidator(ctx, {
        operator: msg.validatorAddress,
        pubkey: msg.pubkey,
        moniker: msg.description?.moniker ?? "",
        amount: coinsOf(msg.value),
        commission: msg.commission,
      });
      return create(MsgCreateValidatorResponseSchema);
    },
    async delegate(ctx, msg) {
      await keeper.delegate(ctx, msg.delegatorAddress, msg.validatorAddress, coinsOf(msg.amount));
      return create(MsgDelegateResponseSchema);
    },
    async beginRedelegate(ctx, msg) {
      const done = await keeper.beginRedelegation(
        ctx,
        msg.delegatorAddress,
        msg.validatorSrcAddress,
        msg.validatorDstAddress,
        coinsOf(msg.amount),
      );
      return create(MsgBeginRedelegateResponseSchema, { completionTime: timestampFromDate(done) });
    },
    async undelegate(ctx, msg) {
      const amount = coinsOf(msg.amount);
      const done = await keeper.undelegate(ctx, msg.delegatorAddress, msg.validatorAddress, amount);
      return create(MsgUndelegateResponseSchema, {
        completionTime: timestampFromDate(done),
        amount: msg.amount,
      });
    },
  };
}
