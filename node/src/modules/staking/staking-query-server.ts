import { create } from "@bufbuild/protobuf";
import {
  type Query,
  QueryDelegationResponseSchema,
  QueryDelegatorDelegationsResponseSchema,
  QueryParamsResponseSchema,
  QueryPoolResponseSchema,
  QueryRedelegationsResponseSchema,
  QueryValidatorDelegationsResponseSchema,
  QueryValidatorResponseSchema,
  QueryValidatorsResponseSchema,
} from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import {
  BondStatus,
  type Delegation,
  DelegationResponseSchema,
  RedelegationResponseSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import type { Context } from "../../app/context.js";
import { DEC_ONE, parseDecWire } from "../../app/dec.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { moduleAddress } from "../../crypto/address.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import { BONDED_POOL, NOT_BONDED_POOL, type StakingKeeper } from "./staking-keeper.js";

export function stakingQueryServer(keeper: StakingKeeper, bank: BankKeeper): ServiceImpl<typeof Query> {
  const balance = async (ctx: Context, d: Delegation) => {
    const { bondDenom } = await keeper.getParams(ctx);
    return create(DelegationResponseSchema, {
      delegation: d,
      balance: { denom: bondDenom, amount: (parseDecWire(d.shares) / DEC_ONE).toString() },
    });
  };
  const valAddr = (s: string) => {
    if (!s) throw ChainError.wrap(SdkErrors.InvalidRequest, "validator address cannot be empty");
    return keeper.valoper.fromString(s, "validator address");
  };
  const page = (n: number) => ({ nextKey: new Uint8Array(), total: BigInt(n) });
  return {
    async validators(ctx, req) {
      const wanted = req.status ? BondStatus[req.status as keyof typeof BondStatus] : undefined;
      if (req.status && wanted === undefined)
        throw ChainError.wrap(SdkErrors.InvalidRequest, `invalid validator status ${req.status}`);
      const validators = [];
      for await (const v of keeper.validators(ctx))
        if (wanted === undefined || v.status === wanted) validators.push(v);
      return create(QueryValidatorsResponseSchema, { validators, pagination: page(validators.length) });
    },
    async validator(ctx, req) {
      const v = await keeper.getValidator(ctx, valAddr(req.validatorAddr));
      if (!v) throw ChainError.wrap(SdkErrors.NotFound, `validator ${req.validatorAddr} not found`);
      return create(QueryValidatorResponseSchema, { validator: v });
    },
    async validatorDelegations(ctx, req) {
      valAddr(req.validatorAddr);
      const out = [];
      for await (const d of keeper.allDelegations(ctx))
        if (d.validatorAddress === req.validatorAddr) out.push(await balance(ctx, d));
      return create(QueryValidatorDelegationsResponseSchema, {
        delegationResponses: out,
        pagination: page(out.length),
      });
    },
    async delegation(ctx, req) {
      const del = keeper.addresses.fromString(req.delegatorAddr, "delegator address");
      const d = await keeper.getDelegation(ctx, del, valAddr(req.validatorAddr));
      if (!d)
        throw ChainError.wrap(
          SdkErrors.NotFound,
          `delegation with delegator ${req.delegatorAddr} not found for validator ${req.validatorAddr}`,
        );
      return create(QueryDelegationResponseSchema, { delegationResponse: await balance(ctx, d) });
    },
    async delegatorDelegations(ctx, req) {
      const del = keeper.addresses.fromString(req.delegatorAddr, "delegator address");
      const out = [];
      for await (const d of keeper.delegationsOf(ctx, del)) out.push(await balance(ctx, d));
      return create(QueryDelegatorDelegationsResponseSchema, {
        delegationResponses: out,
        pagination: page(out.length),
      });
    },
    async redelegations(ctx, req) {
      const del = keeper.addresses.fromString(req.delegatorAddr, "delegator address");
      const src = req.srcValidatorAddr ? valAddr(req.srcValidatorAddr) : undefined;
      const dst = req.dstValidatorAddr ? valAddr(req.dstValidatorAddr) : undefined;
      const out = [];
      for await (const red of keeper.redelegations.ofDelegator(ctx, del)) {
        if (src && keeper.valoper.toString(src) !== red.validatorSrcAddress) continue;
        if (dst && keeper.valoper.toString(dst) !== red.validatorDstAddress) continue;
        // Nothing is slashed here: every entry still holds what it started with.
        const entries = red.entries.map((e) => ({ redelegationEntry: e, balance: e.initialBalance }));
        out.push(create(RedelegationResponseSchema, { redelegation: red, entries }));
      }
      if (src && dst && out.length === 0)
        throw ChainError.wrap(
          SdkErrors.NotFound,
          `redelegation not found for delegator address ${req.delegatorAddr} from validator address ${req.srcValidatorAddr}`,
        );
      return create(QueryRedelegationsResponseSchema, {
        redelegationResponses: out,
        pagination: page(out.length),
      });
    },
    async pool(ctx) {
      const { bondDenom } = await keeper.getParams(ctx);
      const bonded = await bank.getBalance(ctx, moduleAddress(BONDED_POOL), bondDenom);
      const notBonded = await bank.getBalance(ctx, moduleAddress(NOT_BONDED_POOL), bondDenom);
      return create(QueryPoolResponseSchema, {
        pool: { bondedTokens: bonded.toString(), notBondedTokens: notBonded.toString() },
      });
    },
    async params(ctx) {
      return create(QueryParamsResponseSchema, { params: await keeper.getParams(ctx) });
    },
  };
}
