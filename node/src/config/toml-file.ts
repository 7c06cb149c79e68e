import { readFileSync } from "node:fs";
import {
  ConfigError,
  type ConfigOf,
  type ConfigProblem,
  type ConfigTable,
  type Entries,
  parseTable,
  tomlLookup,
} from "@chaind/core/config-table";
import { parse } from "smol-toml";

export type TomlTable = Record<string, unknown>;

/** A TOML file's document, or the one problem that keeps it from being read (named by file and position). */
function readTomlFile(path: string): { doc: TomlTable } | { problem: ConfigProblem } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return { problem: { source: null, key: "", message: `cannot read ${path}: ${why}` } };
  }
  try {
    return { doc: parse(text) as TomlTable };
  } catch (e) {
    const why = (e as Error).message.split("\n")[0];
    return { problem: { source: null, key: "", message: `invalid TOML in ${path}: ${why}` } };
  }
}

/**
 * A config file read through its table: the settings, or every problem of the file (unreadable, bad TOML, each
 * bad value), each naming the file and the key. Keys the table does not know are left alone, as Cosmos does.
 */
export function parseTomlConfig<E extends Entries>(
  table: ConfigTable<E>,
  path: string,
  overrides: ConfigOverrides = {},
): { config: ConfigOf<E>; problems: [] } | { config: null; problems: ConfigProblem[] } {
  const file = readTomlFile(path);
  if ("problem" in file) return { config: null, problems: [file.problem] };
  const fromFile = tomlLookup(file.doc, path);
  return parseTable(table, (key) => overrides[key] ?? fromFile(key));
}

/**
 * Values that stand in for a file's keys on one run (`start --rpc.laddr ...`), by dotted key; each is checked as
 * the file's value would be, and a problem names its source (the flag).
 */
export type ConfigOverrides = Record<string, { value: unknown; source: string; key: string }>;

/** {@link parseTomlConfig}, throwing a ConfigError with every problem. */
export function readTomlConfig<E extends Entries>(table: ConfigTable<E>, path: string): ConfigOf<E> {
  const r = parseTomlConfig(table, path);
  if (r.config === null) throw new ConfigError(r.problems);
  return r.config;
}
