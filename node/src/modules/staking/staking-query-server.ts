import { create, fromBinary } from "@bufbuild/protobuf";
import {
  type Query,
  QueryDelegationResponseSchema,
  QueryDelegatorDelegationsResponseSchema,
  QueryDelegatorUnbondingDelegationsResponseSchema,
  QueryParamsResponseSchema,
  QueryPoolResponseSchema,
  QueryRedelegationsResponseSchema,
  QueryUnbondingDelegationResponseSchema,
  QueryValidatorDelegationsResponseSchema,
  QueryValidatorResponseSchema,
  QueryValidatorsResponseSchema,
} from "@chaind/proto/sdk/staking/v1beta1/query_pb";
import {
  BondStatus,
  BondStatusSchema,
  type Delegation,
  DelegationResponseSchema,
  DelegationSchema,
  RedelegationResponseSchema,
  RedelegationSchema,
  UnbondingDelegationSchema,
  ValidatorSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import type { Context } from "../../app/context.js";
import { DEC_ONE, parseDecWire } from "../../app/dec.js";
import { paginate, paginateSelected } from "../../app/pagination.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { moduleAddress } from "../../crypto/address.js";
import { ChainError } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import { BONDED_POOL, NOT_BONDED_POOL, type StakingKeeper } from "./staking-keeper.js";
import { STAKING_STORE, StakingKeys } from "./staking-keys.js";

/**
 * The Validators query's status filter, as Cosmos SDK 0.50 reads it: "" for all, else exactly one of the three
 * bond statuses by its proto name (BOND_STATUS_BONDED, what Keplr and Telescope send); anything else, numbers and
 * BOND_STATUS_UNSPECIFIED among them, is an InvalidArgument error.
 */
function validatorsStatusFilter(status: string): BondStatus | undefined {
  if (status === "") return undefined;
  const named = BondStatusSchema.values.find((v) => v.name === status && v.number !== BondStatus.UNSPECIFIED);
  if (!named)
    throw new ChainError("sdk", 18, GrpcCode.INVALID_ARGUMENT, `invalid validator status ${status}`);
  return named.number;
}

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
  return {
    async validators(ctx, req) {
      const wanted = validatorsStatusFilter(req.status);
      const { items, page } = await paginateSelected(
        ctx.kv(STAKING_STORE),
        StakingKeys.validator.prefix,
        req.pagination,
        (_addr, bytes) => {
          const v = fromBinary(ValidatorSchema, bytes);
          return wanted === undefined || v.status === wanted ? v : undefined;
        },
      );
      return create(QueryValidatorsResponseSchema, { validators: items, pagination: page });
    },
    async validator(ctx, req) {
      const v = await keeper.getValidator(ctx, valAddr(req.validatorAddr));
      if (!v) throw ChainError.wrap(SdkErrors.NotFound, `validator ${req.validatorAddr} not found`);
      return create(QueryValidatorResponseSchema, { validator: v });
    },
    async validatorDelegations(ctx, req) {
      valAddr(req.validatorAddr);
      // Delegations are kept by delegator: a validator's are found among all of them, as the SDK did before
      // its by-validator index.
      const { items, page } = await paginateSelected(
        ctx.kv(STAKING_STORE),
        StakingKeys.delegation.prefix,
        req.pagination,
        (_key, bytes) => {
          const d = fromBinary(DelegationSchema, bytes);
          return d.validatorAddress === req.validatorAddr ? balance(ctx, d) : undefined;
        },
      );
      return create(QueryValidatorDelegationsResponseSchema, {
        delegationResponses: items,
        pagination: page,
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
      const { items, page } = await paginate(
        ctx.kv(STAKING_STORE),
        StakingKeys.delegation.prefixOf(del),
        req.pagination,
        (_val, bytes) => balance(ctx, fromBinary(DelegationSchema, bytes)),
      );
      return create(QueryDelegatorDelegationsResponseSchema, {
        delegationResponses: items,
        pagination: page,
      });
    },
    async unbondingDelegation(ctx, req) {
      const del = keeper.addresses.fromString(req.delegatorAddr, "delegator address");
      const u = await keeper.getUnbonding(ctx, del, valAddr(req.validatorAddr));
      if (!u)
        throw ChainError.wrap(
          SdkErrors.NotFound,
          `unbonding delegation with delegator ${req.delegatorAddr} not found for validator ${req.validatorAddr}`,
        );
      return create(QueryUnbondingDelegationResponseSchema, { unbond: u });
    },
    async delegatorUnbondingDelegations(ctx, req) {
      const del = keeper.addresses.fromString(req.delegatorAddr, "delegator address");
      const { items, page } = await paginate(
        ctx.kv(STAKING_STORE),
        StakingKeys.unbonding.prefixOf(del),
        req.pagination,
        (_val, bytes) => fromBinary(UnbondingDelegationSchema, bytes),
      );
      return create(QueryDelegatorUnbondingDelegationsResponseSchema, {
        unbondingResponses: items,
        pagination: page,
      });
    },
    async redelegations(ctx, req) {
      const del = keeper.addresses.fromString(req.delegatorAddr, "delegator address");
      const src = req.srcValidatorAddr ? valAddr(req.srcValidatorAddr) : undefined;
      const dst = req.dstValidatorAddr ? valAddr(req.dstValidatorAddr) : undefined;
      const { items, page } = await paginateSelected(
        ctx.kv(STAKING_STORE),
        StakingKeys.redelegation.prefixOf(del),
        req.pagination,
        (_key, bytes) => {
          const red = fromBinary(RedelegationSchema, bytes);
          if (src && keeper.valoper.toString(src) !== red.validatorSrcAddress) return;
          if (dst && keeper.valoper.toString(dst) !== red.validatorDstAddress) return;
          // Nothing is slashed here: every entry still holds what it started with.
          const entries = red.entries.map((e) => ({ redelegationEntry: e, balance: e.initialBalance }));
          return create(RedelegationResponseSchema, { redelegation: red, entries });
        },
      );
      if (src && dst && items.length === 0)
        throw ChainError.wrap(
          SdkErrors.NotFound,
          `redelegation not found for delegator address ${req.delegatorAddr} from validator address ${req.srcValidatorAddr}`,
        );
      return create(QueryRedelegationsResponseSchema, {
        redelegationResponses: items,
        pagination: page,
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
