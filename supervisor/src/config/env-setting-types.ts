import { isAbsolute } from "node:path";
import type { SettingType } from "@chaind/core/config-table";
import { formatGoDuration, parseGoDuration } from "@chaind/core/go-duration";
import { goTomlString } from "./go-toml-string.js";

/**
 * The value types of visor's settings, read from environment strings the way cosmovisor reads them, and from
 * config.toml's TOML values the way cosmovisor's viper decodes them (booleans, integers, integer-nanosecond
 * durations). `toml` writes a value as cosmovisor's encoder (go-toml v2) does.
 */

export const envText: SettingType<string> = {
  expected: "a string",
  parse: (raw) => (typeof raw === "string" ? raw : undefined),
  show: (v) => v,
  toml: goTomlString,
};

export const envAbsolutePath: SettingType<string> = {
  expected: "an absolute path",
  parse: (raw) => (typeof raw === "string" && isAbsolute(raw) ? raw : undefined),
  show: (v) => v,
  toml: goTomlString,
};

/** A name of a file in a folder: no separator, not `.` or `..`. */
export const envFileName: SettingType<string> = {
  expected: "a file name",
  parse: (raw) =>
    typeof raw === "string" && !raw.includes("/") && raw !== "." && raw !== ".." ? raw : undefined,
  show: (v) => v,
  toml: goTomlString,
};

/** Only true or false, in any case (cosmovisor's rule), or a TOML boolean; an empty variable is unset. */
export const envBool: SettingType<boolean> = {
  expected: "true or false",
  parse: (raw) => {
    if (typeof raw === "boolean") return raw;
    const l = typeof raw === "string" ? raw.toLowerCase() : "";
    return l === "true" ? true : l === "false" ? false : undefined;
  },
  show: String,
  toml: String,
};

export function envWholeNumber(min: number): SettingType<number> {
  return {
    expected: `a whole number ≥ ${min}`,
    parse: (raw) => {
      if (typeof raw === "string" && !/^\d+$/.test(raw)) return undefined;
      const n = typeof raw === "string" || typeof raw === "number" ? Number(raw) : Number.NaN;
      return Number.isSafeInteger(n) && n >= min ? n : undefined;
    },
    show: String,
    toml: String,
  };
}

/**
 * A Go duration ("300ms", "10s"), or in config.toml also a TOML integer of nanoseconds, as cosmovisor's `init`
 * writes them (`daemon_poll_interval = 300000000`); the value is milliseconds. `positive`: 0 is refused, as
 * cosmovisor does. An environment variable of digits alone is refused, as Go's time.ParseDuration refuses it.
 */
export function envGoDuration(opts: { positive: boolean }): SettingType<number> {
  return {
    expected: `a Go duration${opts.positive ? " > 0" : ""} such as 300ms or 10s`,
    parse: (raw) => {
      let ms: number;
      if (typeof raw === "number") {
        if (!Number.isSafeInteger(raw) || raw < 0) return undefined;
        ms = raw / 1e6;
      } else if (typeof raw === "string") {
        try {
          ms = parseGoDuration(raw);
        } catch {
          return undefined;
        }
      } else return undefined;
      return opts.positive && ms === 0 ? undefined : ms;
    },
    show: formatGoDuration,
    toml: (ms) => String(Math.round(ms * 1e6)),
  };
}

export function envChoice<const V extends string>(values: readonly V[]): SettingType<V> {
  return {
    expected: `one of ${values.join(", ")}`,
    parse: (raw) => (values.includes(raw as V) ? (raw as V) : undefined),
    show: (v) => v,
    toml: goTomlString,
  };
}

/** A comma-separated list, or a TOML array of strings; blanks around and between items are dropped. */
export const envList: SettingType<string[]> = {
  expected: "a comma-separated list",
  parse: (raw) => {
    const items = typeof raw === "string" ? raw.split(",") : Array.isArray(raw) ? raw : undefined;
    if (!items?.every((s) => typeof s === "string")) return undefined;
    return items.map((s) => s.trim()).filter(Boolean);
  },
  show: (v) => v.join(","),
  toml: (v) => `[${v.map(goTomlString).join(", ")}]`,
};
