import type { SettingType } from "@chaind/core/config-table";
import { formatGoDuration, parseGoDuration } from "@chaind/core/go-duration";
import { parseDecCoins } from "../app/dec-coins.js";

/** The value types of app.toml, config.toml and client.toml, read as Cosmos and CometBFT write them. */

/** A TOML basic string: JSON's escapes are TOML's, but TOML also wants DEL escaped. */
const quote = (s: string) => JSON.stringify(s).replace(/\x7f/g, "\\u007F");

export const tomlString: SettingType<string> = {
  expected: "a string",
  parse: (raw) => (typeof raw === "string" ? raw : undefined),
  show: (v) => v,
  toml: quote,
};

/** Decimal coins such as "0.025stake,1uatom" (minimum-gas-prices), or nothing: checked as the node parses them. */
export const tomlDecCoins: SettingType<string> = {
  expected: 'decimal coins such as "0.025stake" or "0.025stake,1uatom" (or "" for none)',
  parse: (raw) => {
    if (typeof raw !== "string") return undefined;
    try {
      parseDecCoins(raw);
      return raw;
    } catch {
      return undefined;
    }
  },
  show: (v) => v,
  toml: quote,
};

export const tomlBool: SettingType<boolean> = {
  expected: "true or false",
  parse: (raw) => (typeof raw === "boolean" ? raw : undefined),
  show: String,
  toml: String,
};

/**
 * A whole number from `min` up. Written as a number or, as Cosmos's app.toml template does for some keys, as a
 * string of digits (`quoted` renders it so).
 */
export function tomlWholeNumber(opts: { min: number; quoted?: boolean }): SettingType<number> {
  return {
    expected: `a whole number ≥ ${opts.min}`,
    parse: (raw) => {
      const n =
        typeof raw === "string" && /^\s*-?\d+\s*$/.test(raw)
          ? Number(raw)
          : typeof raw === "bigint"
            ? Number(raw)
            : raw;
      return typeof n === "number" && Number.isSafeInteger(n) && n >= opts.min ? n : undefined;
    },
    show: String,
    toml: opts.quoted ? (v) => `"${v}"` : String,
  };
}

/** One of a fixed set of strings. */
export function tomlChoice<const V extends string>(values: readonly V[]): SettingType<V> {
  return {
    expected: `one of ${values.join(", ")}`,
    parse: (raw) => (values.includes(raw as V) ? (raw as V) : undefined),
    show: (v) => v,
    toml: quote,
  };
}

/** A Go duration string ("300ms", "5s", "1m30s"), as CometBFT writes its timeouts; the value is milliseconds. */
export const tomlGoDuration: SettingType<number> = {
  expected: "a Go duration such as 300ms, 5s or 1m30s",
  parse: (raw) => {
    if (typeof raw !== "string") return undefined;
    try {
      return parseGoDuration(raw);
    } catch {
      return undefined;
    }
  },
  show: formatGoDuration,
  toml: (v) => quote(formatGoDuration(v)),
};
