import { create, fromBinary } from "@bufbuild/protobuf";
import { MetadataSchema } from "@chaind/proto/sdk/bank/v1beta1/bank_pb";
import {
  type Query,
  QueryAllBalancesResponseSchema,
  QueryBalanceResponseSchema,
  QueryDenomMetadataByQueryStringResponseSchema,
  QueryDenomMetadataResponseSchema,
  QueryDenomsMetadataResponseSchema,
  QueryParamsResponseSchema,
  QuerySpendableBalancesResponseSchema,
  QuerySupplyOfResponseSchema,
  QueryTotalSupplyResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import type { PageRequest } from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import { CoinSchema } from "@chaind/proto/sdk/base/v1beta1/coin_pb";
import { validateDenom } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import { paginate } from "../../app/pagination.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ChainError } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";
import { stringKey } from "../../store/string-key.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import { BANK_STORE, type BankKeeper, decodeAmount } from "./bank-keeper.js";
import { BankKeys } from "./bank-keys.js";

const invalid = (msg: string) => new ChainError("sdk", 18, GrpcCode.INVALID_ARGUMENT, msg);

function denomArg(denom: string): string {
  if (denom === "") throw invalid("invalid denom");
  try {
    validateDenom(denom);
  } catch (e) {
    throw invalid((e as Error).message);
  }
  return denom;
}

/** bank's Query service. */
export function bankQueryServer(
  bank: BankKeeper,
  accounts: AccountKeeper,
): Partial<ServiceImpl<typeof Query>> {
  const address = (a: string) => {
    if (a === "") throw invalid("empty address string is not allowed");
    return accounts.addresses.fromString(a);
  };
  // Under an address's prefix (or the supply prefix) what is left of a key is its denom.
  const coin = (denomKey: Uint8Array, v: Uint8Array) =>
    create(CoinSchema, { denom: stringKey.decode(denomKey), amount: decodeAmount(v).toString() });
  const balancesPage = async (ctx: Context, addr: string, pagination: PageRequest | undefined) =>
    paginate(ctx.kv(BANK_STORE), BankKeys.balance.prefixOf(address(addr)), pagination, coin);
  // As the SDK: the denom must be valid, and a denom without metadata is NotFound.
  const metadataOf = async (ctx: Context, denom: string) => {
    try {
      validateDenom(denom);
    } catch {
      throw invalid(`invalid denom: ${denom}`);
    }
    const m = await bank.getDenomMetadata(ctx, denom);
    if (!m) throw new ChainError("sdk", 38, GrpcCode.NOT_FOUND, `client metadata for denom ${denom}`);
    return m;
  };
  return {
    async balance(ctx, req) {
      const addr = address(req.address);
      const denom = denomArg(req.denom);
      const amount = await bank.getBalance(ctx, addr, denom);
      return create(QueryBalanceResponseSchema, {
        balance: create(CoinSchema, { denom, amount: amount.toString() }),
      });
    },
    async allBalances(ctx, req) {
      const { items, page } = await balancesPage(ctx, req.address, req.pagination);
      return create(QueryAllBalancesResponseSchema, { balances: items, pagination: page });
    },
    async spendableBalances(ctx, req) {
      const { items, page } = await balancesPage(ctx, req.address, req.pagination);
      return create(QuerySpendableBalancesResponseSchema, { balances: items, pagination: page });
    },
    async totalSupply(ctx, req) {
      const { items, page } = await paginate(
        ctx.kv(BANK_STORE),
        BankKeys.supply.prefix,
        req.pagination,
        coin,
      );
      return create(QueryTotalSupplyResponseSchema, { supply: items, pagination: page });
    },
    async supplyOf(ctx, req) {
      const denom = denomArg(req.denom);
      const amount = await bank.getSupply(ctx, denom);
      return create(QuerySupplyOfResponseSchema, {
        amount: create(CoinSchema, { denom, amount: amount.toString() }),
      });
    },
    async denomMetadata(ctx, req) {
      return create(QueryDenomMetadataResponseSchema, { metadata: await metadataOf(ctx, req.denom) });
    },
    async denomMetadataByQueryString(ctx, req) {
      return create(QueryDenomMetadataByQueryStringResponseSchema, {
        metadata: await metadataOf(ctx, req.denom),
      });
    },
    async denomsMetadata(ctx, req) {
      const { items, page } = await paginate(
        ctx.kv(BANK_STORE),
        BankKeys.denomMetadata.prefix,
        req.pagination,
        (_denom, v) => fromBinary(MetadataSchema, v),
      );
      return create(QueryDenomsMetadataResponseSchema, { metadatas: items, pagination: page });
    },
    async params(ctx) {
      return create(QueryParamsResponseSchema, { params: await bank.getParams(ctx) });
    },
  };
}
