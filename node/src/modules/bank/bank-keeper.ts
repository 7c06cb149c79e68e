import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  type Metadata,
  MetadataSchema,
  type Params,
  ParamsSchema,
} from "@chaind/proto/sdk/bank/v1beta1/bank_pb";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import { DecodedOnce } from "../../app/decoded-once.js";
import { moduleAddress } from "../../crypto/address.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { utf8Bytes } from "../../store/utf8-bytes.js";
import type { AccountKeeper } from "../auth/account-keeper.js";
import { BankKeys } from "./bank-keys.js";

export const BANK_STORE = "bank";

const untext = new TextDecoder();

/** Up to 15 digits fit a double exactly: such an amount (nearly every one) is read without text. */
const SHORT_DIGITS = 15;

export function decodeAmount(v: Uint8Array): bigint {
  const n = v.length;
  if (n > 0 && n <= SHORT_DIGITS) {
    let x = 0;
    let i = 0;
    for (; i < n; i++) {
      const d = v[i] - 0x30;
      if (d < 0 || d > 9) break;
      x = x * 10 + d;
    }
    if (i === n) return BigInt(x);
  }
  return BigInt(untext.decode(v));
}

export function defaultBankParams(): Params {
  return create(ParamsSchema, { defaultSendEnabled: true });
}

/** Balances, transfers and supply. */
export class BankKeeper {
  constructor(private readonly accounts: AccountKeeper) {}

  private readonly params = new DecodedOnce((raw) => fromBinary(ParamsSchema, raw));

  /** Shared with every caller: not to be changed in place. */
  async getParams(ctx: Context): Promise<Params> {
    const raw = await ctx.kv(BANK_STORE).get(BankKeys.params);
    return raw ? this.params.of(raw) : defaultBankParams();
  }

  setParams(ctx: Context, p: Params): void {
    ctx.kv(BANK_STORE).set(BankKeys.params, toBinary(ParamsSchema, p));
  }

  async getDenomMetadata(ctx: Context, denom: string): Promise<Metadata | undefined> {
    const raw = await ctx.kv(BANK_STORE).get(BankKeys.denomMetadata.encode(denom));
    return raw ? fromBinary(MetadataSchema, raw) : undefined;
  }

  setDenomMetadata(ctx: Context, m: Metadata): void {
    ctx.kv(BANK_STORE).set(BankKeys.denomMetadata.encode(m.base), toBinary(MetadataSchema, m));
  }

  /** Every denom's metadata, in denom order. */
  async *iterateDenomMetadata(ctx: Context): AsyncGenerator<Metadata> {
    for await (const [, v] of ctx.kv(BANK_STORE).iterate({ prefix: BankKeys.denomMetadata.prefix }))
      yield fromBinary(MetadataSchema, v);
  }

  async getBalance(ctx: Context, addr: Uint8Array, denom: string): Promise<bigint> {
    return this.balanceAt(ctx, BankKeys.balance.encode([addr, denom]));
  }

  /** A balance by its key: a transfer reads and writes the same key, encoded once. */
  private async balanceAt(ctx: Context, key: Uint8Array): Promise<bigint> {
    const v = await ctx.kv(BANK_STORE).get(key);
    return v ? decodeAmount(v) : 0n;
  }

  async getAllBalances(ctx: Context, addr: Uint8Array): Promise<Coins> {
    const list = [];
    for await (const [k, v] of ctx.kv(BANK_STORE).iterate({ prefix: BankKeys.balance.prefixOf(addr) })) {
      const [, denom] = BankKeys.balance.decode(k);
      list.push({ denom, amount: decodeAmount(v) });
    }
    return Coins.normalize(list);
  }

  private setBalance(ctx: Context, key: Uint8Array, amount: bigint): void {
    if (amount === 0n) ctx.kv(BANK_STORE).delete(key);
    else ctx.kv(BANK_STORE).set(key, utf8Bytes(amount.toString()));
  }

  async getSupply(ctx: Context, denom: string): Promise<bigint> {
    const v = await ctx.kv(BANK_STORE).get(BankKeys.supply.encode(denom));
    return v ? decodeAmount(v) : 0n;
  }

  private setSupply(ctx: Context, denom: string, amount: bigint): void {
    const key = BankKeys.supply.encode(denom);
    if (amount === 0n) ctx.kv(BANK_STORE).delete(key);
    else ctx.kv(BANK_STORE).set(key, utf8Bytes(amount.toString()));
  }

  async subtractCoins(ctx: Context, addr: Uint8Array, coins: Coins): Promise<void> {
    for (const c of coins.list) {
      const key = BankKeys.balance.encode([addr, c.denom]);
      const have = await this.balanceAt(ctx, key);
      if (have < c.amount) {
        throw ChainError.wrap(
          SdkErrors.InsufficientFunds,
          `spendable balance ${have}${c.denom} is smaller than ${c.amount}${c.denom}`,
        );
      }
      this.setBalance(ctx, key, have - c.amount);
    }
    ctx.events.emit("coin_spent", {
      spender: this.accounts.addresses.toString(addr),
      amount: coins.toString(),
    });
  }

  async addCoins(ctx: Context, addr: Uint8Array, coins: Coins): Promise<void> {
    for (const c of coins.list) {
      const key = BankKeys.balance.encode([addr, c.denom]);
      this.setBalance(ctx, key, (await this.balanceAt(ctx, key)) + c.amount);
    }
    ctx.events.emit("coin_received", {
      receiver: this.accounts.addresses.toString(addr),
      amount: coins.toString(),
    });
  }

  async sendCoins(ctx: Context, from: Uint8Array, to: Uint8Array, coins: Coins): Promise<void> {
    await this.subtractCoins(ctx, from, coins);
    await this.accounts.ensureAccount(ctx, to);
    await this.addCoins(ctx, to, coins);
    const addresses = this.accounts.addresses;
    ctx.events.emit("transfer", {
      recipient: addresses.toString(to),
      sender: addresses.toString(from),
      amount: coins.toString(),
    });
    ctx.events.emit("message", { sender: addresses.toString(from) });
  }

  async sendCoinsFromAccountToModule(
    ctx: Context,
    from: Uint8Array,
    moduleName: string,
    coins: Coins,
  ): Promise<void> {
    await this.accounts.ensureModuleAccount(ctx, moduleName);
    await this.sendCoins(ctx, from, moduleAddress(moduleName), coins);
  }

  async sendCoinsFromModuleToAccount(
    ctx: Context,
    moduleName: string,
    to: Uint8Array,
    coins: Coins,
  ): Promise<void> {
    await this.sendCoins(ctx, moduleAddress(moduleName), to, coins);
  }

  async sendCoinsFromModuleToModule(ctx: Context, from: string, to: string, coins: Coins): Promise<void> {
    await this.accounts.ensureModuleAccount(ctx, to);
    await this.sendCoins(ctx, moduleAddress(from), moduleAddress(to), coins);
  }

  async mintCoins(ctx: Context, moduleName: string, coins: Coins): Promise<void> {
    await this.accounts.ensureModuleAccount(ctx, moduleName);
    await this.addCoins(ctx, moduleAddress(moduleName), coins);
    for (const c of coins.list) this.setSupply(ctx, c.denom, (await this.getSupply(ctx, c.denom)) + c.amount);
    ctx.events.emit("coinbase", {
      minter: this.accounts.addresses.toString(moduleAddress(moduleName)),
      amount: coins.toString(),
    });
  }

  async burnCoins(ctx: Context, moduleName: string, coins: Coins): Promise<void> {
    await this.subtractCoins(ctx, moduleAddress(moduleName), coins);
    for (const c of coins.list) this.setSupply(ctx, c.denom, (await this.getSupply(ctx, c.denom)) - c.amount);
    ctx.events.emit("burn", {
      burner: this.accounts.addresses.toString(moduleAddress(moduleName)),
      amount: coins.toString(),
    });
  }

  /** Genesis: balances are set directly and supply is their sum (or checked against the declared one). */
  async initBalances(ctx: Context, balances: { addr: Uint8Array; coins: Coins }[]): Promise<Coins> {
    let total = Coins.empty();
    for (const b of balances) {
      for (const c of b.coins.list)
        this.setBalance(ctx, BankKeys.balance.encode([b.addr, c.denom]), c.amount);
      await this.accounts.ensureAccount(ctx, b.addr);
      total = total.add(b.coins);
    }
    for (const c of total.list) this.setSupply(ctx, c.denom, c.amount);
    return total;
  }

  async isSendEnabled(ctx: Context, denom: string): Promise<boolean> {
    const p = await this.getParams(ctx);
    const entry = p.sendEnabled.find((s) => s.denom === denom);
    return entry ? entry.enabled : p.defaultSendEnabled;
  }
}
