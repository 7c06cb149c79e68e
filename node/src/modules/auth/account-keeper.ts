import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import {
  type BaseAccount,
  BaseAccountSchema,
  type ModuleAccount,
  ModuleAccountSchema,
  type Params,
  ParamsSchema,
} from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import type { AddressCodec } from "../../app/address-codec.js";
import type { Context } from "../../app/context.js";
import { DecodedOnce } from "../../app/decoded-once.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { moduleAddress } from "../../crypto/address.js";
import { uint64Key } from "../../store/uint-keys.js";
import { AuthKeys } from "./auth-keys.js";
import { decodeBaseAccountRecord, encodeBaseAccountRecord } from "./base-account-codec.js";

export const AUTH_STORE = "acc";

export function defaultAuthParams(): Params {
  return create(ParamsSchema, {
    maxMemoCharacters: 256n,
    txSigLimit: 7n,
    txSizeCostPerByte: 10n,
    sigVerifyCostEd25519: 590n,
    sigVerifyCostSecp256k1: 1000n,
  });
}

/** An account as stored: a plain account, or a module account wrapping one. */
export type StoredAccount =
  | { kind: "base"; base: BaseAccount }
  | { kind: "module"; base: BaseAccount; module: ModuleAccount };

/** Accounts, account numbers and auth params. */
export class AccountKeeper {
  constructor(
    readonly addresses: AddressCodec,
    private readonly types: TypeRegistry,
  ) {}

  private readonly params = new DecodedOnce((raw) => fromBinary(ParamsSchema, raw));

  /** Shared with every caller: not to be changed in place. */
  async getParams(ctx: Context): Promise<Params> {
    const raw = await ctx.kv(AUTH_STORE).get(AuthKeys.params);
    return raw ? this.params.of(raw) : defaultAuthParams();
  }

  setParams(ctx: Context, p: Params): void {
    ctx.kv(AUTH_STORE).set(AuthKeys.params, toBinary(ParamsSchema, p));
  }

  decodeAccount(raw: Uint8Array): StoredAccount {
    const base = decodeBaseAccountRecord(raw);
    if (base) return { kind: "base", base };
    return this.fromAny(fromBinary(AnySchema, raw));
  }

  fromAny(any: Any): StoredAccount {
    const { message, desc } = this.types.unpack(any);
    if (desc.typeName === ModuleAccountSchema.typeName) {
      const module = message as ModuleAccount;
      return { kind: "module", base: module.baseAccount ?? create(BaseAccountSchema), module };
    }
    return { kind: "base", base: message as BaseAccount };
  }

  packAccount(acc: StoredAccount): Any {
    return acc.kind === "module"
      ? this.types.pack(
          ModuleAccountSchema,
          create(ModuleAccountSchema, { ...acc.module, baseAccount: acc.base }),
        )
      : this.types.pack(BaseAccountSchema, acc.base);
  }

  encodeAccount(acc: StoredAccount): Uint8Array {
    return (
      (acc.kind === "base" ? encodeBaseAccountRecord(acc.base) : undefined) ??
      toBinary(AnySchema, this.packAccount(acc))
    );
  }

  async getAccount(ctx: Context, addr: Uint8Array): Promise<StoredAccount | undefined> {
    const raw = await ctx.kv(AUTH_STORE).get(AuthKeys.account.encode(addr));
    return raw ? this.decodeAccount(raw) : undefined;
  }

  async hasAccount(ctx: Context, addr: Uint8Array): Promise<boolean> {
    return ctx.kv(AUTH_STORE).has(AuthKeys.account.encode(addr));
  }

  setAccount(ctx: Context, acc: StoredAccount): void {
    const addr = this.addresses.fromString(acc.base.address);
    const kv = ctx.kv(AUTH_STORE);
    kv.set(AuthKeys.account.encode(addr), this.encodeAccount(acc));
    kv.set(AuthKeys.accountByNumber.encode(acc.base.accountNumber), addr);
  }

  /** Genesis: the counter the next new account takes its number from. */
  setNextAccountNumber(ctx: Context, n: bigint): void {
    ctx.kv(AUTH_STORE).set(AuthKeys.nextAccountNumber, uint64Key.encode(n));
  }

  async nextAccountNumber(ctx: Context): Promise<bigint> {
    const kv = ctx.kv(AUTH_STORE);
    const raw = await kv.get(AuthKeys.nextAccountNumber);
    const n = raw ? uint64Key.decode(raw) : 0n;
    kv.set(AuthKeys.nextAccountNumber, uint64Key.encode(n + 1n));
    return n;
  }

  /** A fresh account with the next account number; not stored until `setAccount`. */
  async newAccount(ctx: Context, addr: Uint8Array): Promise<StoredAccount> {
    const base = create(BaseAccountSchema, {
      address: this.addresses.toString(addr),
      accountNumber: await this.nextAccountNumber(ctx),
      sequence: 0n,
    });
    return { kind: "base", base };
  }

  /** Creates the account on first receipt of funds, as Cosmos bank does. */
  async ensureAccount(ctx: Context, addr: Uint8Array): Promise<void> {
    if (await this.hasAccount(ctx, addr)) return;
    this.setAccount(ctx, await this.newAccount(ctx, addr));
  }

  async addressByNumber(ctx: Context, n: bigint): Promise<Uint8Array | undefined> {
    return ctx.kv(AUTH_STORE).get(AuthKeys.accountByNumber.encode(n));
  }

  /** The module account for `name` (address sha256(name)[:20]), created when first used. */
  async moduleAccount(ctx: Context, name: string, permissions: string[] = []): Promise<StoredAccount> {
    const existing = await this.getAccount(ctx, moduleAddress(name));
    return existing ?? this.createModuleAccount(ctx, name, permissions);
  }

  /**
   * Creates the module account for `name` unless it exists. It reads the account as Cosmos' GetModuleAccount does
   * (the same gas) but leaves it undecoded: transfers to a module (every fee) only need it to exist.
   */
  async ensureModuleAccount(ctx: Context, name: string): Promise<void> {
    const raw = await ctx.kv(AUTH_STORE).get(AuthKeys.account.encode(moduleAddress(name)));
    if (!raw) await this.createModuleAccount(ctx, name, []);
  }

  private async createModuleAccount(
    ctx: Context,
    name: string,
    permissions: string[],
  ): Promise<StoredAccount> {
    const { base } = await this.newAccount(ctx, moduleAddress(name));
    const acc: StoredAccount = {
      kind: "module",
      base,
      module: create(ModuleAccountSchema, { baseAccount: base, name, permissions }),
    };
    this.setAccount(ctx, acc);
    return acc;
  }

  async *iterateAccounts(ctx: Context): AsyncIterable<StoredAccount> {
    for await (const [, v] of ctx.kv(AUTH_STORE).iterate({ prefix: AuthKeys.account.prefix }))
      yield this.decodeAccount(v);
  }
}
