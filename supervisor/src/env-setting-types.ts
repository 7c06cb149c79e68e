import { isAbsolute } from "node:path";
import type { SettingType } from "@chaind/core/config-table";
import { formatGoDuration, parseGoDuration } from "@chaind/core/go-duration";

/**
 * The value types of visor's settings, read from environment strings the way cosmovisor reads them (its
 * config.toml's values arrive as the same strings).
 */

export const envText: SettingType<string> = {
  expected: "a string",
  parse: (raw) => (typeof raw === "string" ? raw : undefined),
  show: (v) => v,
};

export const envAbsolutePath: SettingType<string> = {
  expected: "an absolute path",
  parse: (raw) => (typeof raw === "string" && isAbsolute(raw) ? raw : undefined),
  show: (v) => v,
};

/** A name of a file in a folder: no separator, not `.` or `..`. */
export const envFileName: SettingType<string> = {
  expected: "a file name",
  parse: (raw) =>
    typeof raw === "string" && !raw.includes("/") && raw !== "." && raw !== ".." ? raw : undefined,
  show: (v) => v,
};

/** Only true or false, in any case (cosmovisor's rule); an empty variable is unset. */
export const envBool: SettingType<boolean> = {
  expected: "true or false",
  parse: (raw) => {
    const l = typeof raw === "string" ? raw.toLowerCase() : "";
    return l === "true" ? true : l === "false" ? false : undefined;
  },
  show: String,
};

export function envWholeNumber(min: number): SettingType<number> {
  return {
    expected: `a whole number ≥ ${min}`,
    parse: (raw) => {
      if (typeof raw !== "string" || !/^\d+$/.test(raw)) return undefined;
      const n = Number(raw);
      return Number.isSafeInteger(n) && n >= min ? n : undefined;
    },
    show: String,
  };
}

/** A Go duration ("300ms", "10s"); the value is milliseconds. `positive`: 0 is refused, as cosmovisor does. */
export function envGoDuration(opts: { positive: boolean }): SettingType<number> {
  return {
    expected: `a Go duration${opts.positive ? " > 0" : ""} such as 300ms or 10s`,
    parse: (raw) => {
      if (typeof raw !== "string") return undefined;
      let ms: number;
      try {
        ms = parseGoDuration(raw);
      } catch {
        return undefined;
      }
      return opts.positive && ms === 0 ? undefined : ms;
    },
    show: formatGoDuration,
  };
}

export function envChoice<const V extends string>(values: readonly V[]): SettingType<V> {
  return {
    expected: `one of ${values.join(", ")}`,
    parse: (raw) => (values.includes(raw as V) ? (raw as V) : undefined),
    show: (v) => v,
  };
}

/** A comma-separated list; blanks around and between items are dropped. */
export const envList: SettingType<string[]> = {
  expected: "a comma-separated list",
  parse: (raw) =>
    typeof raw === "string"
      ? raw
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean)
      : undefined,
  show: (v) => v.join(","),
};
