import { CliError } from "./cli-error.js";

type ProtoCoin = { denom: string; amount: string };

/** The SDK's coin expression: an amount (it also reads decimals), optional space, a denom. */
const COIN_EXPRESSION = /^(\d+(?:\.\d+)?|\.\d+)\s*([a-zA-Z][a-zA-Z0-9/:._-]{2,127})$/;

/**
 * A coin list argument ("10stake,5uatom") read as the SDK's CLI reads it (ParseCoinsNormalized), with its error
 * texts: `invalid decimal coin expression: 12x`. Unlike the SDK, a fractional amount is refused rather than cut
 * down to its integer part: a coin argument never loses what was typed.
 */
export function parseCoinsArgument(text: string): ProtoCoin[] {
  if (text.trim() === "") return [];
  // Zero amounts dropped and denoms sorted, as the SDK does; a denom named twice is an error.
  const coins = text
    .split(",")
    .map((part) => parseOne(part.trim()))
    .filter((c) => c.amount !== "0")
    .sort((a, b) => (a.denom < b.denom ? -1 : a.denom > b.denom ? 1 : 0));
  for (const [i, c] of coins.entries())
    if (i > 0 && coins[i - 1].denom === c.denom)
      throw new CliError(`parsed decimal coins are invalid: duplicate denomination ${c.denom}`);
  return coins;
}

/** One coin ("100stake"), as the SDK's ParseCoinNormalized reads a delegation amount. */
export function parseCoinArgument(text: string): ProtoCoin {
  return parseOne(text.trim());
}

function parseOne(part: string): ProtoCoin {
  const m = COIN_EXPRESSION.exec(part);
  if (!m) throw new CliError(`invalid decimal coin expression: ${part}`);
  const [, amount, denom] = m;
  if (!/^\d+$/.test(amount))
    throw new CliError(`invalid coin amount ${part}: an amount is a whole number of ${denom}`);
  return { denom, amount: BigInt(amount).toString() };
}
