import { existsSync, readFileSync, statSync } from "node:fs";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import {
  ConfigError,
  type ConfigTable,
  type Entries,
  formatProblem,
  parseTable,
  type TableRow,
  tableRows,
  tomlLookup,
} from "@chaind/core/config-table";
import { parse } from "smol-toml";
import type { Argv, CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { APP_TOML } from "../config/app-config.js";
import { CLIENT_TOML } from "../config/client-config.js";
import { HomeLayout } from "../config/home-layout.js";
import { CONFIG_TOML } from "../config/node-config.js";
import { setTomlLine } from "../config/toml-edit.js";
import type { GlobalArgs } from "./global-options.js";

/** The files `config get|set` edit, by the names Cosmos's confix gives them. */
const CONFIG_FILES = {
  client: { table: CLIENT_TOML, path: (l: HomeLayout) => l.clientToml },
  app: { table: APP_TOML, path: (l: HomeLayout) => l.appToml },
  config: { table: CONFIG_TOML, path: (l: HomeLayout) => l.configToml },
} as const;
type ConfigName = keyof typeof CONFIG_FILES;

interface ConfigArgs extends GlobalArgs {
  file: ConfigName;
  key: string;
  value?: string;
}

/** One line naming the file and the key, as the readers of these files report problems. */
const problem = (path: string, key: string, message: string) =>
  new CliError(formatProblem({ source: path, key, message }));

interface Target {
  path: string;
  row: TableRow;
  text: string;
  doc: Record<string, unknown>;
}

function target(a: ConfigArgs): Target {
  const { table, path: pathOf } = CONFIG_FILES[a.file];
  const path = pathOf(new HomeLayout(a.home));
  const row = tableRows(table as ConfigTable<Entries>).find((r) => r.key === a.key);
  if (!row) throw problem(path, a.key, `unknown key (${table.name} has no such setting)`);
  if (!existsSync(path)) throw problem(path, "", "the file does not exist (run init first)");
  const text = readFileSync(path, "utf8");
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    throw problem(path, "", `invalid TOML: ${(e as Error).message.split("\n")[0]}`);
  }
  return { path, row, text, doc };
}

/** The value of a row in a document: the file's, or the default when the file does not set it. */
function currentValue(t: Target): unknown {
  const raw = tomlLookup(t.doc, t.path)(t.row.key);
  if (raw === undefined) return t.row.setting.default;
  const value = t.row.setting.type.parse(raw.value);
  if (value === undefined)
    throw problem(
      t.path,
      t.row.key,
      `expected ${t.row.setting.type.expected}, got ${JSON.stringify(raw.value)}`,
    );
  return value;
}

/**
 * The value a command-line word stands for: the word itself when the setting takes it (strings, durations,
 * digits), else the word read as a TOML literal (`true`, `42`).
 */
function wordValue(t: Target, word: string): unknown {
  const { type, check } = t.row.setting;
  let value = type.parse(word);
  if (value === undefined) {
    try {
      value = type.parse((parse(`v = ${word}`) as { v: unknown }).v);
    } catch {
      // Not a TOML literal either: the error below says what the setting takes.
    }
  }
  const failed = value === undefined ? type.expected : (check?.(value) ?? null);
  if (failed !== null) throw problem(t.path, t.row.key, `expected ${failed}, got ${JSON.stringify(word)}`);
  return value;
}

function runGet(a: ConfigArgs): void {
  const t = target(a);
  process.stdout.write(`${t.row.setting.type.show(currentValue(t))}\n`);
}

function runSet(a: ConfigArgs): void {
  if (a.value === undefined)
    throw new CliError("config set needs a value: config set <client|app|config> <key> <value>");
  const t = target(a);
  const { setting, section } = t.row;
  const value = wordValue(t, a.value);
  const literal = setting.type.toml?.(value);
  if (literal === undefined) throw problem(t.path, t.row.key, "this setting cannot be written to TOML");
  const text = setTomlLine(t.text, section?.section ?? null, setting.name, literal);
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (e) {
    throw problem(
      t.path,
      t.row.key,
      `the value is not on one line and cannot be edited here: ${(e as Error).message.split("\n")[0]}`,
    );
  }
  // The edited file must read as a whole (checks across settings), and must hold exactly the new value.
  const read = parseTable(CONFIG_FILES[a.file].table as ConfigTable<Entries>, tomlLookup(doc, t.path));
  if (read.config === null) throw new ConfigError(read.problems);
  if (JSON.stringify(currentValue({ ...t, doc })) !== JSON.stringify(value))
    throw problem(t.path, t.row.key, "the file's line for this key could not be edited in place");
  writeFileAtomic(t.path, text, { mode: statSync(t.path).mode & 0o777 });
}

const fileAndKey = (y: Argv<GlobalArgs>) =>
  y
    .positional("file", { choices: Object.keys(CONFIG_FILES), demandOption: true, describe: "which file" })
    .positional("key", { type: "string", demandOption: true, describe: "dotted key, e.g. api.enable" });

/** `chaind config get|set <client|app|config> <key> [value]`, as Cosmos SDK 0.50's confix. */
export const configCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: "config",
  describe: "Get and set client.toml, app.toml and config.toml values",
  builder: (y) =>
    y
      .command({
        command: "get <file> <key>",
        describe: "Print a config value (client.toml, app.toml or config.toml)",
        builder: fileAndKey,
        handler: runGet,
      } as never)
      .command({
        command: "set <file> <key> <value>",
        describe: "Set a config value, keeping the file's comments and other lines",
        builder: (y2: Argv<GlobalArgs>) =>
          fileAndKey(y2).positional("value", {
            type: "string",
            demandOption: true,
            describe: "the new value",
          }),
        handler: runSet,
      } as never)
      .demandCommand(1, SHOW_GROUP_HELP) as never,
  handler: () => {},
};
