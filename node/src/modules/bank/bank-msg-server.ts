import { create } from "@bufbuild/protobuf";
import { ParamsSchema } from "@chaind/proto/sdk/bank/v1beta1/bank_pb";
import {
  type Msg,
  MsgMultiSendResponseSchema,
  MsgSendResponseSchema,
  MsgSetSendEnabledResponseSchema,
  MsgUpdateParamsResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import type { BankKeeper } from "./bank-keeper.js";

/**
 * bank's Msg service. `blocked` holds module account addresses that must not receive plain sends, and
 * `authority` is the only address allowed to change params (the gov module account).
 */
export function bankMsgServer(
  bank: BankKeeper,
  accounts: AccountKeeper,
  opts: { blocked: Set<string>; authority: string },
): ServiceImpl<typeof Msg> {
  const addresses = accounts.addresses;
  const checkAuthority = (authority: string) => {
    if (authority !== opts.authority) {
      throw ChainError.wrap(
        SdkErrors.InvalidSigner,
        `invalid authority; expected ${opts.authority}, got ${authority}`,
      );
    }
  };
  // By bytes: bech32 also accepts the upper-case form of a blocked address.
  const isBlocked = (addr: Uint8Array) => opts.blocked.has(addresses.toString(addr));
  const checkSendable = async (ctx: Context, coins: Coins) => {
    for (const c of coins.list) {
      if (!(await bank.isSendEnabled(ctx, c.denom))) {
        throw ChainError.wrap(SdkErrors.InvalidRequest, `${c.denom} transfers are currently disabled`);
      }
    }
  };
  return {
    async send(ctx, msg) {
      const from = addresses.fromString(msg.fromAddress, "from address");
      const to = addresses.fromString(msg.toAddress, "to address");
      const coins = Coins.from(msg.amount);
      if (coins.isEmpty) throw ChainError.wrap(SdkErrors.InvalidCoins, "amount must not be empty");
      await checkSendable(ctx, coins);
      if (isBlocked(to)) {
        throw ChainError.wrap(SdkErrors.Unauthorized, `${msg.toAddress} is not allowed to receive funds`);
      }
      await bank.sendCoins(ctx, from, to, coins);
      return create(MsgSendResponseSchema);
    },
    async multiSend(ctx, msg) {
      if (msg.inputs.length !== 1)
        throw ChainError.wrap(SdkErrors.InvalidRequest, "multiple senders not allowed");
      if (msg.outputs.length === 0)
        throw ChainError.wrap(SdkErrors.InvalidRequest, "no outputs to send transaction");
      const input = msg.inputs[0];
      const inCoins = Coins.from(input.coins);
      let outTotal = Coins.empty();
      for (const o of msg.outputs) outTotal = outTotal.add(Coins.from(o.coins));
      if (inCoins.toString() !== outTotal.toString()) {
        throw ChainError.wrap(SdkErrors.InvalidCoins, "sum inputs != sum outputs");
      }
      await checkSendable(ctx, inCoins);
      const from = addresses.fromString(input.address, "input address");
      await bank.subtractCoins(ctx, from, inCoins);
      for (const o of msg.outputs) {
        const to = addresses.fromString(o.address, "output address");
        if (isBlocked(to))
          throw ChainError.wrap(SdkErrors.Unauthorized, `${o.address} is not allowed to receive funds`);
        await accounts.ensureAccount(ctx, to);
        await bank.addCoins(ctx, to, Coins.from(o.coins));
      }
      return create(MsgMultiSendResponseSchema);
    },
    async updateParams(ctx, msg) {
      checkAuthority(msg.authority);
      if (!msg.params) throw ChainError.wrap(SdkErrors.InvalidRequest, "params must not be empty");
      bank.setParams(ctx, msg.params);
      return create(MsgUpdateParamsResponseSchema);
    },
    async setSendEnabled(ctx, msg) {
      checkAuthority(msg.authority);
      const params = await bank.getParams(ctx);
      const drop = new Set([...msg.useDefaultFor, ...msg.sendEnabled.map((s) => s.denom)]);
      const kept = params.sendEnabled.filter((s) => !drop.has(s.denom));
      const sendEnabled = [...kept, ...msg.sendEnabled].sort((a, b) => (a.denom < b.denom ? -1 : 1));
      bank.setParams(ctx, create(ParamsSchema, { ...params, sendEnabled }));
      return create(MsgSetSendEnabledResponseSchema);
    },
  };
}
