import { create } from "@bufbuild/protobuf";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import {
  AddressBytesToStringResponseSchema,
  AddressStringToBytesResponseSchema,
  Bech32PrefixResponseSchema,
  type Query,
  QueryAccountAddressByIDResponseSchema,
  QueryAccountInfoResponseSchema,
  QueryAccountResponseSchema,
  QueryAccountsResponseSchema,
  QueryModuleAccountByNameResponseSchema,
  QueryModuleAccountsResponseSchema,
  QueryParamsResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import type { Context } from "../../app/context.js";
import { paginate } from "../../app/pagination.js";
import type { ServiceImpl } from "../../app/service-registrar.js";
import { ChainError } from "../../errors/chain-error.js";
import { GrpcCode } from "../../errors/grpc-code.js";
import { type AccountKeeper, AUTH_STORE, type StoredAccount } from "./account-keeper.js";
import { AuthKeys } from "./auth-keys.js";

const notFound = (msg: string) => new ChainError("sdk", 22, GrpcCode.NOT_FOUND, msg);
const invalid = (msg: string) => new ChainError("sdk", 18, GrpcCode.INVALID_ARGUMENT, msg);

/** auth's Query service over the account keeper. */
export function authQueryServer(
  keeper: AccountKeeper,
  moduleNames: () => string[],
): ServiceImpl<typeof Query> {
  const pack = (acc: StoredAccount) => keeper.packAccount(acc);
  const requireAddress = (address: string) => {
    if (address === "") throw invalid("empty address string is not allowed");
    return keeper.addresses.fromString(address);
  };
  return {
    async account(ctx: Context, req) {
      const acc = await keeper.getAccount(ctx, requireAddress(req.address));
      if (!acc) throw notFound(`account ${req.address} not found`);
      return create(QueryAccountResponseSchema, { account: pack(acc) });
    },
    async accounts(ctx, req) {
      const { items, page } = await paginate(
        ctx.kv(AUTH_STORE),
        AuthKeys.account.prefix,
        req.pagination,
        (_k, v) => pack(keeper.decodeAccount(v)),
      );
      return create(QueryAccountsResponseSchema, { accounts: items, pagination: page });
    },
    async accountAddressByID(ctx, req) {
      const id = req.accountId !== 0n ? req.accountId : BigInt(req.id);
      if (req.id < 0n) throw invalid("account id cannot be negative");
      const addr = await keeper.addressByNumber(ctx, id);
      if (!addr) throw notFound(`account address not found for account number ${id}`);
      return create(QueryAccountAddressByIDResponseSchema, {
        accountAddress: keeper.addresses.toString(addr),
      });
    },
    async params(ctx) {
      return create(QueryParamsResponseSchema, { params: await keeper.getParams(ctx) });
    },
    async moduleAccounts(ctx) {
      const accounts = [];
      for (const name of moduleNames().sort()) accounts.push(pack(await keeper.moduleAccount(ctx, name)));
      return create(QueryModuleAccountsResponseSchema, { accounts });
    },
    async moduleAccountByName(ctx, req) {
      if (req.name === "") throw invalid("module name is empty");
      if (!moduleNames().includes(req.name)) throw notFound(`account ${req.name} not found`);
      return create(QueryModuleAccountByNameResponseSchema, {
        account: pack(await keeper.moduleAccount(ctx, req.name)),
      });
    },
    async bech32Prefix() {
      return create(Bech32PrefixResponseSchema, { bech32Prefix: keeper.addresses.prefix });
    },
    async addressBytesToString(_ctx, req) {
      if (req.addressBytes.length === 0) throw invalid("empty address bytes is not allowed");
      return create(AddressBytesToStringResponseSchema, {
        addressString: keeper.addresses.toString(req.addressBytes),
      });
    },
    async addressStringToBytes(_ctx, req) {
      return create(AddressStringToBytesResponseSchema, { addressBytes: requireAddress(req.addressString) });
    },
    async accountInfo(ctx, req) {
      const acc = await keeper.getAccount(ctx, requireAddress(req.address));
      if (!acc) throw notFound(`account ${req.address} not found`);
      return create(QueryAccountInfoResponseSchema, { info: create(BaseAccountSchema, acc.base) });
    },
  };
}
