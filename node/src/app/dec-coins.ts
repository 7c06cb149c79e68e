import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

/** A decimal coin as an exact fraction, e.g. 0.025stake = 25/1000. */
export interface DecCoin {
  denom: string;
  numerator: bigint;
  denominator: bigint;
}

const DEC_COIN_RE = /^(\d+)(?:\.(\d{1,18}))?\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})$/;

/**
 * Parses minimum gas prices such as "0.025stake,1uatom". Only a blank text is no prices; an empty entry (",")
 * is an error, as Cosmos' ParseDecCoins has it, so a price list cannot be emptied by accident.
 */
export function parseDecCoins(text: string): DecCoin[] {
  const out: DecCoin[] = [];
  if (text.trim() === "") return out;
  for (const part of text.split(",").map((s) => s.trim())) {
    const m = DEC_COIN_RE.exec(part);
    if (!m) throw ChainError.wrap(SdkErrors.InvalidCoins, `invalid decimal coin expression: ${part}`);
    const frac = m[2] ?? "";
    out.push({ denom: m[3], numerator: BigInt(m[1] + frac), denominator: 10n ** BigInt(frac.length) });
  }
  return out;
}

/** ceil(price * gas): the fee a gas price asks for, rounded up as Cosmos does. */
export function requiredFee(price: DecCoin, gas: bigint): bigint {
  const product = price.numerator * gas;
  return (product + price.denominator - 1n) / price.denominator;
}
