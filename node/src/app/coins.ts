import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

/** A coin amount; amounts are arbitrary-precision integers as in Cosmos (math.Int). */
export interface CoinAmount {
  denom: string;
  amount: bigint;
}

/** Cosmos denom rule: a letter, then 2-127 of letters, digits, '/', ':', '.', '_', '-'. */
const DENOM_RE = /^[a-zA-Z][a-zA-Z0-9/:._-]{2,127}$/;
const COIN_RE = /^([0-9]+)\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})$/;
const MAX_AMOUNT_BITS = 256;

export function validateDenom(denom: string): void {
  if (!DENOM_RE.test(denom)) throw ChainError.wrap(SdkErrors.InvalidCoins, `invalid denom: ${denom}`);
}

function checkAmount(c: CoinAmount): void {
  if (c.amount < 0n)
    throw ChainError.wrap(SdkErrors.InvalidCoins, `negative coin amount: ${c.amount}${c.denom}`);
  if (c.amount >> BigInt(MAX_AMOUNT_BITS) !== 0n)
    throw ChainError.wrap(SdkErrors.InvalidCoins, "coin amount overflows 256 bits");
}

/** Sorted coin lists with unique denoms, positive amounts: the canonical Cosmos `Coins` form. */
export class Coins {
  private constructor(readonly list: readonly CoinAmount[]) {}

  static empty(): Coins {
    return new Coins([]);
  }

  /** Validates as Cosmos `Coins.Validate` does: sorted, no duplicates, positive amounts. */
  static from(coins: readonly { denom: string; amount: string | bigint }[]): Coins {
    const list: CoinAmount[] = [];
    for (const c of coins) {
      validateDenom(c.denom);
      const amount = typeof c.amount === "bigint" ? c.amount : parseAmount(c.amount, c.denom);
      const coin = { denom: c.denom, amount };
      checkAmount(coin);
      if (amount === 0n)
        throw ChainError.wrap(SdkErrors.InvalidCoins, `coin ${amount}${c.denom} amount is not positive`);
      const prev = list[list.length - 1];
      if (prev && prev.denom >= c.denom) {
        throw ChainError.wrap(
          SdkErrors.InvalidCoins,
          prev.denom === c.denom
            ? `duplicate denomination ${c.denom}`
            : `denomination ${c.denom} is not sorted`,
        );
      }
      list.push(coin);
    }
    return new Coins(list);
  }

  /** Like `from`, but sorts first and drops zero amounts: for sums built by the node itself. */
  static normalize(coins: readonly CoinAmount[]): Coins {
    const byDenom = new Map<string, bigint>();
    for (const c of coins) byDenom.set(c.denom, (byDenom.get(c.denom) ?? 0n) + c.amount);
    const list = [...byDenom]
      .filter(([, a]) => a !== 0n)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([denom, amount]) => ({ denom, amount }));
    for (const c of list) checkAmount(c);
    return new Coins(list);
  }

  /** Parses "10stake,5uatom" as the CLI and genesis commands accept it. */
  static parse(text: string): Coins {
    const t = text.trim();
    if (t === "") return Coins.empty();
    const coins: CoinAmount[] = [];
    for (const part of t.split(",")) {
      const m = COIN_RE.exec(part.trim());
      if (!m) throw ChainError.wrap(SdkErrors.InvalidCoins, `invalid coin expression: ${part.trim()}`);
      coins.push({ denom: m[2], amount: BigInt(m[1]) });
    }
    const sorted = [...coins].sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
    return Coins.from(sorted);
  }

  get isEmpty(): boolean {
    return this.list.length === 0;
  }

  amountOf(denom: string): bigint {
    return this.list.find((c) => c.denom === denom)?.amount ?? 0n;
  }

  add(other: Coins): Coins {
    return Coins.normalize([...this.list, ...other.list]);
  }

  /** Fails (returns null) when any denom would go negative, so callers report insufficient funds. */
  safeSub(other: Coins): Coins | null {
    const out: CoinAmount[] = this.list.map((c) => ({ ...c }));
    for (const o of other.list) {
      const have = out.find((c) => c.denom === o.denom);
      if (!have || have.amount < o.amount) return null;
      have.amount -= o.amount;
    }
    return Coins.normalize(out);
  }

  /** True when every coin of `other` is covered by this set. */
  isAllGTE(other: Coins): boolean {
    return other.list.every((o) => this.amountOf(o.denom) >= o.amount);
  }

  toProto(): { denom: string; amount: string }[] {
    return this.list.map((c) => ({ denom: c.denom, amount: c.amount.toString() }));
  }

  toString(): string {
    return this.list.map((c) => `${c.amount}${c.denom}`).join(",");
  }
}

function parseAmount(s: string, denom: string): bigint {
  if (!/^\d+$/.test(s)) throw ChainError.wrap(SdkErrors.InvalidCoins, `invalid amount "${s}" for ${denom}`);
  return BigInt(s);
}
