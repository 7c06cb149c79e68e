import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { durationFromMs, timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { PubKeySchema as Ed25519PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import {
  BondStatus,
  type CommissionRates,
  CommissionRatesSchema,
  type Delegation,
  DelegationSchema,
  type Params,
  ParamsSchema,
  RedelegationSchema,
  type UnbondingDelegation,
  UnbondingDelegationEntrySchema,
  UnbondingDelegationSchema,
  type Validator,
  ValidatorSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import type { AddressCodec } from "../../app/address-codec.js";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import { DEC_ONE, formatDec, formatDecWire, parseDecWire } from "../../app/dec.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import type { BankKeeper } from "../bank/bank-keeper.js";
import { checkedCommissionRates } from "./commission-rates.js";
import { Redelegations } from "./redelegations.js";
import { StakingErrors, stakingError } from "./staking-errors.js";
import { STAKING_STORE, StakingKeys } from "./staking-keys.js";

export { STAKING_STORE };
export const BONDED_POOL = "bonded_tokens_pool";
export const NOT_BONDED_POOL = "not_bonded_tokens_pool";

/** Cosmos' default power reduction: a validator's consensus power is its bonded tokens over 10^6. */
export function consensusPower(tokens: string | bigint): bigint {
  return BigInt(tokens) / 1_000_000n;
}

/** A validator's ed25519 consensus key; any other kind signs no blocks here. */
export function consensusKeyOf(v: Validator): Uint8Array {
  const any = v.consensusPubkey;
  if (!any?.typeUrl.endsWith(".crypto.ed25519.PubKey"))
    throw new Error(
      `validator ${v.operatorAddress} has consensus key type ${any?.typeUrl ?? "(none)"}; only ed25519 keys sign blocks`,
    );
  return fromBinary(Ed25519PubKeySchema, any.value).key;
}

export function defaultStakingParams(): Params {
  return create(ParamsSchema, {
    unbondingTime: durationFromMs(21 * 24 * 3600 * 1000),
    maxValidators: 100,
    maxEntries: 7,
    historicalEntries: 10000,
    bondDenom: "stake",
    minCommissionRate: formatDecWire(0n),
  });
}

/** The testnet validator's commission rate and largest daily change: 0.05, as the SDK's testnet validator. */
const TESTNET_COMMISSION = DEC_ONE / 20n;

const badRequest = (why: string) => ChainError.wrap(SdkErrors.InvalidRequest, why);

/**
 * Validators, delegations and unbonding. Nothing is slashed, so shares and tokens stay 1:1 and a validator's
 * bonded tokens are its voting power.
 */
export class StakingKeeper {
  readonly valoper: AddressCodec;
  readonly redelegations = new Redelegations();

  constructor(
    readonly addresses: AddressCodec,
    valoper: AddressCodec,
    private readonly bank: BankKeeper,
  ) {
    this.valoper = valoper;
  }

  async getParams(ctx: Context): Promise<Params> {
    const v = await ctx.kv(STAKING_STORE).get(StakingKeys.params);
    return v ? fromBinary(ParamsSchema, v) : defaultStakingParams();
  }

  setParams(ctx: Context, p: Params): void {
    ctx.kv(STAKING_STORE).set(StakingKeys.params, toBinary(ParamsSchema, p));
  }

  async getValidator(ctx: Context, valAddr: Uint8Array): Promise<Validator | undefined> {
    const v = await ctx.kv(STAKING_STORE).get(StakingKeys.validator.encode(valAddr));
    return v && fromBinary(ValidatorSchema, v);
  }

  setValidator(ctx: Context, v: Validator): void {
    const addr = this.valoper.fromString(v.operatorAddress, "validator address");
    ctx.kv(STAKING_STORE).set(StakingKeys.validator.encode(addr), toBinary(ValidatorSchema, v));
  }

  async *validators(ctx: Context): AsyncIterable<Validator> {
    for await (const [, v] of ctx.kv(STAKING_STORE).iterate({ prefix: StakingKeys.validator.prefix }))
      yield fromBinary(ValidatorSchema, v);
  }

  /**
   * The validators consensus runs with: bonded, not jailed and with voting power (tokens / 10^6, so at least
   * 10^6 bonded), each with its ed25519 consensus key.
   */
  async *consensusValidators(
    ctx: Context,
  ): AsyncIterable<{ validator: Validator; pubKey: Uint8Array; power: bigint }> {
    for await (const v of this.validators(ctx)) {
      const power = consensusPower(v.tokens);
      if (v.status !== BondStatus.BONDED || v.jailed || power <= 0n) continue;
      yield { validator: v, pubKey: consensusKeyOf(v), power };
    }
  }

  async getDelegation(ctx: Context, del: Uint8Array, val: Uint8Array): Promise<Delegation | undefined> {
    const v = await ctx.kv(STAKING_STORE).get(StakingKeys.delegation.encode([del, val]));
    return v && fromBinary(DelegationSchema, v);
  }

  async *delegationsOf(ctx: Context, del: Uint8Array): AsyncIterable<Delegation> {
    const prefix = StakingKeys.delegation.prefixOf(del);
    for await (const [, v] of ctx.kv(STAKING_STORE).iterate({ prefix }))
      yield fromBinary(DelegationSchema, v);
  }

  async *allDelegations(ctx: Context): AsyncIterable<Delegation> {
    for await (const [, v] of ctx.kv(STAKING_STORE).iterate({ prefix: StakingKeys.delegation.prefix }))
      yield fromBinary(DelegationSchema, v);
  }

  /** Genesis: delegations as exported, trusted to match the validators' shares. */
  async importDelegations(ctx: Context, list: readonly Delegation[]): Promise<void> {
    for (const d of list) this.setDelegation(ctx, d);
  }

  private setDelegation(ctx: Context, d: Delegation): void {
    const key = StakingKeys.delegation.encode([
      this.addresses.fromString(d.delegatorAddress),
      this.valoper.fromString(d.validatorAddress),
    ]);
    if (parseDecWire(d.shares) === 0n) ctx.kv(STAKING_STORE).delete(key);
    else ctx.kv(STAKING_STORE).set(key, toBinary(DelegationSchema, d));
  }

  /** Creates a bonded validator whose operator self-delegates `amount`. */
  async createValidator(
    ctx: Context,
    v: {
      operator: string;
      pubkey: Validator["consensusPubkey"];
      moniker: string;
      amount: Coins;
      commission?: CommissionRates;
    },
  ): Promise<void> {
    const valAddr = this.valoper.fromString(v.operator, "validator address");
    const commission = checkedCommissionRates(v.commission, (await this.getParams(ctx)).minCommissionRate);
    if (await this.getValidator(ctx, valAddr))
      throw badRequest(
        `validator already exist for this operator address; must use new validator operator address`,
      );
    this.setValidator(
      ctx,
      create(ValidatorSchema, {
        operatorAddress: v.operator,
        consensusPubkey: v.pubkey,
        status: BondStatus.BONDED,
        tokens: "0",
        delegatorShares: formatDecWire(0n),
        description: { moniker: v.moniker },
        commission: { commissionRates: commission, updateTime: timestampFromDate(ctx.block.time) },
        minSelfDelegation: "1",
      }),
    );
    await this.delegate(ctx, this.addresses.toString(valAddr), v.operator, v.amount);
  }

  async delegate(ctx: Context, delegator: string, validator: string, amount: Coins): Promise<void> {
    const { bondDenom } = await this.getParams(ctx);
    const tokens = this.bondAmount(amount, bondDenom);
    const valAddr = this.valoper.fromString(validator, "validator address");
    const delAddr = this.addresses.fromString(delegator, "delegator address");
    const val = await this.getValidator(ctx, valAddr);
    if (!val) throw ChainError.wrap(SdkErrors.NotFound, `validator ${validator} does not exist`);
    await this.bank.sendCoinsFromAccountToModule(ctx, delAddr, BONDED_POOL, amount);
    await this.addStake(ctx, val, valAddr, delAddr, delegator, tokens);
    ctx.events.emit("delegate", {
      validator,
      delegator,
      amount: amount.toString(),
      new_shares: formatDec(tokens * DEC_ONE),
    });
  }

  /** Moves stake out of the validator into the unbonding queue; it returns to the delegator when mature. */
  async undelegate(ctx: Context, delegator: string, validator: string, amount: Coins): Promise<Date> {
    const params = await this.getParams(ctx);
    const tokens = this.bondAmount(amount, params.bondDenom);
    const valAddr = this.valoper.fromString(validator, "validator address");
    const delAddr = this.addresses.fromString(delegator, "delegator address");
    const val = await this.getValidator(ctx, valAddr);
    const d = await this.getDelegation(ctx, delAddr, valAddr);
    if (!val || !d) throw ChainError.wrap(SdkErrors.NotFound, "no delegation for (address, validator) tuple");
    this.removeStake(ctx, val, d, tokens);
    await this.bank.sendCoinsFromModuleToModule(ctx, BONDED_POOL, NOT_BONDED_POOL, amount);
    const seconds = Number(params.unbondingTime?.seconds ?? 0n);
    const completion = new Date(ctx.block.time.getTime() + seconds * 1000);
    const ubd =
      (await this.getUnbonding(ctx, delAddr, valAddr)) ??
      create(UnbondingDelegationSchema, {
        delegatorAddress: delegator,
        validatorAddress: validator,
      });
    if (ubd.entries.length >= params.maxEntries)
      throw badRequest("too many unbonding delegation entries for (delegator, validator) tuple");
    ubd.entries.push(
      create(UnbondingDelegationEntrySchema, {
        creationHeight: BigInt(ctx.block.height),
        completionTime: timestampFromDate(completion),
        initialBalance: tokens.toString(),
        balance: tokens.toString(),
      }),
    );
    this.setUnbonding(ctx, ubd);
    ctx
      .kv(STAKING_STORE)
      .set(StakingKeys.unbondingQueue.encode([completion, delAddr, valAddr]), new Uint8Array());
    ctx.events.emit("unbond", {
      validator,
      delegator,
      amount: amount.toString(),
      completion_time: completion.toISOString(),
    });
    return completion;
  }

  /**
   * Moves `amount` of the delegator's stake from one validator to another at once, as Cosmos checks it; the
   * record keeps the delegator from moving it on from `dst` until the unbonding time has passed.
   */
  async beginRedelegation(
    ctx: Context,
    delegator: string,
    src: string,
    dst: string,
    amount: Coins,
  ): Promise<Date> {
    const params = await this.getParams(ctx);
    const tokens = this.bondAmount(amount, params.bondDenom);
    const delAddr = this.addresses.fromString(delegator, "delegator address");
    const srcAddr = this.valoper.fromString(src, "source validator address");
    const dstAddr = this.valoper.fromString(dst, "destination validator address");
    if (Buffer.compare(srcAddr, dstAddr) === 0) throw stakingError(StakingErrors.SelfRedelegation);
    const dstVal = await this.getValidator(ctx, dstAddr);
    if (!dstVal) throw stakingError(StakingErrors.BadRedelegationDst);
    const srcVal = await this.getValidator(ctx, srcAddr);
    const d = await this.getDelegation(ctx, delAddr, srcAddr);
    if (!srcVal || !d)
      throw ChainError.wrap(SdkErrors.NotFound, "no delegation for (address, validator) tuple");
    if (await this.redelegations.isReceiving(ctx, delAddr, srcAddr))
      throw stakingError(StakingErrors.TransitiveRedelegation);
    const red =
      (await this.redelegations.get(ctx, delAddr, srcAddr, dstAddr)) ??
      create(RedelegationSchema, {
        delegatorAddress: delegator,
        validatorSrcAddress: src,
        validatorDstAddress: dst,
      });
    if (red.entries.length >= params.maxEntries) throw stakingError(StakingErrors.MaxRedelegationEntries);
    // Both validators are bonded, so the tokens stay in the bonded pool; only shares and tokens move.
    this.removeStake(ctx, srcVal, d, tokens);
    await this.addStake(ctx, dstVal, dstAddr, delAddr, delegator, tokens);
    const completion = new Date(
      ctx.block.time.getTime() + Number(params.unbondingTime?.seconds ?? 0n) * 1000,
    );
    this.redelegations.addEntry(
      ctx,
      red,
      { del: delAddr, src: srcAddr, dst: dstAddr },
      { height: ctx.block.height, completion, tokens, shares: tokens * DEC_ONE },
    );
    ctx.events.emit("redelegate", {
      source_validator: src,
      destination_validator: dst,
      amount: amount.toString(),
      completion_time: completion.toISOString(),
    });
    return completion;
  }

  /** Bonds `tokens` more to `val` for the delegator; shares and tokens stay 1:1, as nothing is slashed. */
  private async addStake(
    ctx: Context,
    val: Validator,
    valAddr: Uint8Array,
    delAddr: Uint8Array,
    delegator: string,
    tokens: bigint,
  ): Promise<void> {
    val.tokens = (BigInt(val.tokens) + tokens).toString();
    val.delegatorShares = formatDecWire(parseDecWire(val.delegatorShares) + tokens * DEC_ONE);
    this.setValidator(ctx, val);
    const d =
      (await this.getDelegation(ctx, delAddr, valAddr)) ??
      create(DelegationSchema, {
        delegatorAddress: delegator,
        validatorAddress: val.operatorAddress,
        shares: formatDecWire(0n),
      });
    d.shares = formatDecWire(parseDecWire(d.shares) + tokens * DEC_ONE);
    this.setDelegation(ctx, d);
  }

  /** Takes `tokens` of the delegation's stake out of `val`, refusing more than it holds. */
  private removeStake(ctx: Context, val: Validator, d: Delegation, tokens: bigint): void {
    if (parseDecWire(d.shares) < tokens * DEC_ONE) throw badRequest("invalid shares amount");
    d.shares = formatDecWire(parseDecWire(d.shares) - tokens * DEC_ONE);
    this.setDelegation(ctx, d);
    val.tokens = (BigInt(val.tokens) - tokens).toString();
    val.delegatorShares = formatDecWire(parseDecWire(val.delegatorShares) - tokens * DEC_ONE);
    this.setValidator(ctx, val);
  }

  /** Ends the redelegations whose time has come (EndBlock). */
  async completeRedelegations(ctx: Context): Promise<void> {
    for (const red of await this.redelegations.completeDue(ctx))
      ctx.events.emit("complete_redelegation", {
        delegator: red.delegatorAddress,
        source_validator: red.validatorSrcAddress,
        destination_validator: red.validatorDstAddress,
      });
  }

  /** Pays out every unbonding entry whose time has come (EndBlock). */
  async completeUnbondings(ctx: Context): Promise<void> {
    const now = ctx.block.time.getTime();
    const store = ctx.kv(STAKING_STORE);
    const due: { key: Uint8Array; del: Uint8Array; val: Uint8Array }[] = [];
    for await (const [key] of store.iterate({ prefix: StakingKeys.unbondingQueue.prefix })) {
      const [completion, del, val] = StakingKeys.unbondingQueue.decode(key);
      if (completion.getTime() > now) break;
      due.push({ key, del, val });
    }
    const { bondDenom } = await this.getParams(ctx);
    for (const { key, del, val } of due) {
      store.delete(key);
      const ubd = await this.getUnbonding(ctx, del, val);
      if (!ubd) continue;
      const keep = [];
      for (const e of ubd.entries) {
        if (e.completionTime && timestampDate(e.completionTime).getTime() <= now) {
          const coins = Coins.from([{ denom: bondDenom, amount: e.balance }]);
          await this.bank.sendCoinsFromModuleToAccount(ctx, NOT_BONDED_POOL, del, coins);
          ctx.events.emit("complete_unbonding", {
            amount: coins.toString(),
            validator: ubd.validatorAddress,
            delegator: ubd.delegatorAddress,
          });
        } else keep.push(e);
      }
      ubd.entries = keep;
      this.setUnbonding(ctx, ubd);
    }
  }

  async getUnbonding(
    ctx: Context,
    del: Uint8Array,
    val: Uint8Array,
  ): Promise<UnbondingDelegation | undefined> {
    const v = await ctx.kv(STAKING_STORE).get(StakingKeys.unbonding.encode([del, val]));
    return v && fromBinary(UnbondingDelegationSchema, v);
  }

  async *allUnbondings(ctx: Context): AsyncIterable<UnbondingDelegation> {
    for await (const [, v] of ctx.kv(STAKING_STORE).iterate({ prefix: StakingKeys.unbonding.prefix }))
      yield fromBinary(UnbondingDelegationSchema, v);
  }

  /** Genesis: an unbonding as exported, queued to pay out at each entry's completion time. */
  importUnbonding(ctx: Context, u: UnbondingDelegation): void {
    this.setUnbonding(ctx, u);
    const del = this.addresses.fromString(u.delegatorAddress, "unbonding delegator address");
    const val = this.valoper.fromString(u.validatorAddress, "unbonding validator address");
    for (const e of u.entries) {
      const completion = e.completionTime ? timestampDate(e.completionTime) : new Date(0);
      ctx.kv(STAKING_STORE).set(StakingKeys.unbondingQueue.encode([completion, del, val]), new Uint8Array());
    }
  }

  private setUnbonding(ctx: Context, u: UnbondingDelegation): void {
    const key = StakingKeys.unbonding.encode([
      this.addresses.fromString(u.delegatorAddress),
      this.valoper.fromString(u.validatorAddress),
    ]);
    if (u.entries.length === 0) ctx.kv(STAKING_STORE).delete(key);
    else ctx.kv(STAKING_STORE).set(key, toBinary(UnbondingDelegationSchema, u));
  }

  private bondAmount(amount: Coins, bondDenom: string): bigint {
    const list = amount.list;
    if (list.length !== 1 || list[0].denom !== bondDenom)
      throw badRequest(
        `invalid coin denomination: got ${amount.toString() || "nothing"}, expected ${bondDenom}`,
      );
    if (list[0].amount <= 0n) throw badRequest("invalid delegation amount");
    return list[0].amount;
  }

  /**
   * `in-place-testnet`: every validator stops being bonded (its stake and delegations stay, in the bonded pool
   * as before), and the operator's validator, signing with `pubkey`, becomes the only bonded one, with a
   * self-delegation of `tokens` from the operator's account. An operator that runs a validator already keeps it,
   * with the new key.
   */
  async makeSoleValidator(
    ctx: Context,
    v: { operator: Uint8Array; pubkey: Validator["consensusPubkey"]; tokens: bigint },
  ): Promise<void> {
    for await (const val of this.validators(ctx))
      if (val.status === BondStatus.BONDED) {
        val.status = BondStatus.UNBONDED;
        this.setValidator(ctx, val);
      }
    const params = await this.getParams(ctx);
    const amount = Coins.from([{ denom: params.bondDenom, amount: v.tokens }]);
    const operator = this.valoper.toString(v.operator);
    const own = await this.getValidator(ctx, v.operator);
    if (!own) {
      const min = parseDecWire(params.minCommissionRate);
      const rate = min > TESTNET_COMMISSION ? min : TESTNET_COMMISSION;
      return this.createValidator(ctx, {
        operator,
        pubkey: v.pubkey,
        moniker: "Testnet Validator",
        amount,
        commission: create(CommissionRatesSchema, {
          rate: formatDecWire(rate),
          maxRate: formatDecWire(DEC_ONE),
          maxChangeRate: formatDecWire(TESTNET_COMMISSION),
        }),
      });
    }
    own.status = BondStatus.BONDED;
    own.jailed = false;
    own.consensusPubkey = v.pubkey;
    this.setValidator(ctx, own);
    await this.delegate(ctx, this.addresses.toString(v.operator), operator, amount);
  }

  /** Bonded tokens of every bonded validator: the voting power governance counts. */
  async totalBonded(ctx: Context): Promise<bigint> {
    let total = 0n;
    for await (const v of this.validators(ctx)) if (v.status === BondStatus.BONDED) total += BigInt(v.tokens);
    return total;
  }
}
