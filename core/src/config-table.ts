/**
 * Settings declared once, as a table: each entry's key, type, default, unit, validator and description. A
 * table yields the type of the parsed settings, their defaults, the reader (which reports every bad value at
 * once), the TOML renderer and the rows of the reference docs. Generic: nothing here knows a particular file,
 * and nothing here imports other code, so node and visor share it.
 */

/** How a setting's value is written in its source, and what it becomes. */
export interface SettingType<T> {
  /** The form a value must take, as errors and docs say it: "a whole number ≥ 0". */
  readonly expected: string;
  /** The value, or undefined when `raw` is not of the expected form. */
  parse(raw: unknown): T | undefined;
  /** The value as an operator would write it (printed settings, docs). */
  show(value: T): string;
  /** The value as a TOML literal; only types of the TOML files the tables render have one. */
  toml?(value: T): string;
}

export interface Setting<T> {
  /** The key inside its section (TOML), or the whole name (an environment variable). */
  readonly name: string;
  readonly type: SettingType<T>;
  readonly default: T;
  /** Shown in docs instead of the default when the default is not a fixed value. */
  readonly defaultText?: string;
  /** Absent is an error, not the default. */
  readonly required?: boolean;
  /** What a number counts, for docs and comments: "seconds", "bytes". */
  readonly unit?: string;
  /** One line, for docs and the comment above the key in a rendered file. */
  readonly doc: string;
  /** A check beyond the type: the expected form the value misses, or null when it is fine. */
  check?(value: T): string | null;
}

/** A TOML table (`[api]`): its entries become one nested object of the parsed settings. */
export interface Section<E extends Entries> {
  readonly section: string;
  /** The banner above it in a rendered file, and its heading in docs. */
  readonly title: string;
  readonly entries: E;
}

export type Entries = { readonly [field: string]: Setting<unknown> | Section<Entries> };

/** The parsed settings of a table's entries: one field per setting, one nested object per section. */
export type ConfigOf<E extends Entries> = {
  -readonly [K in keyof E]: E[K] extends Section<infer S>
    ? ConfigOf<S>
    : E[K] extends Setting<infer T>
      ? T
      : never;
};

/** A value that fails a check across settings. */
export interface CrossCheckProblem {
  key: string;
  expected: string;
  got: unknown;
}

export interface ConfigTable<E extends Entries> {
  /** The file or the set of variables the table describes ("app.toml"). */
  readonly name: string;
  /** The banner above a rendered file's settings that belong to no section. */
  readonly title?: string;
  readonly entries: E;
  /** Checks across settings, run once every setting has a value of its form. */
  check?(config: ConfigOf<E>): CrossCheckProblem[];
}

export function defineTable<E extends Entries>(table: ConfigTable<E>): ConfigTable<E> {
  return table;
}

/** Declares one entry; its value type comes from its SettingType alone, and the default must be one. */
export function setting<T>(s: Omit<Setting<T>, "default"> & { readonly default: NoInfer<T> }): Setting<T> {
  return s;
}

export function section<E extends Entries>(name: string, title: string, entries: E): Section<E> {
  return { section: name, title, entries };
}

/** One setting with where it sits: `key` is section + name ("api.enable"), `path` the fields leading to it. */
export interface TableRow {
  key: string;
  path: string[];
  setting: Setting<unknown>;
  section: Section<Entries> | null;
}

function isSection(e: Setting<unknown> | Section<Entries>): e is Section<Entries> {
  return "entries" in e;
}

/** Every setting of a table, in table order. */
export function tableRows(table: ConfigTable<Entries>): TableRow[] {
  const rows: TableRow[] = [];
  const walk = (entries: Entries, path: string[], keyPrefix: string, sec: Section<Entries> | null) => {
    for (const [field, e] of Object.entries(entries)) {
      if (isSection(e)) walk(e.entries, [...path, field], `${keyPrefix}${e.section}.`, e);
      else rows.push({ key: `${keyPrefix}${e.name}`, path: [...path, field], setting: e, section: sec });
    }
  };
  walk(table.entries, [], "", null);
  return rows;
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown): void {
  let cur = target;
  for (const p of path.slice(0, -1)) {
    cur[p] ??= {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[path[path.length - 1]] = value;
}

/** The value at `path` (a setting's row path) in a nested config object. */
export function getAt(source: Record<string, unknown>, path: string[]): unknown {
  let cur: unknown = source;
  for (const p of path) cur = (cur as Record<string, unknown>)[p];
  return cur;
}

function copy<T>(v: T): T {
  return (Array.isArray(v) ? [...v] : v) as T;
}

/** A fresh object of every default. */
export function tableDefaults<E extends Entries>(table: ConfigTable<E>): ConfigOf<E> {
  const out: Record<string, unknown> = {};
  for (const row of tableRows(table)) setAt(out, row.path, copy(row.setting.default));
  return out as ConfigOf<E>;
}

/** One bad setting: where it was read, under which key, and what is wrong. */
export interface ConfigProblem {
  /** The file, or null for the environment. */
  source: string | null;
  /** The key as the source spells it; empty for a problem with the whole source. */
  key: string;
  message: string;
}

export function formatProblem(p: ConfigProblem): string {
  return [p.source, p.key, p.message].filter((s) => s).join(": ");
}

function expectedGot(expected: string, got: unknown): string {
  return `expected ${expected}, got ${JSON.stringify(got, (_k, v) => (typeof v === "bigint" ? String(v) : v))}`;
}

/** Every problem of one read, reported together, one line each. */
export class ConfigError extends Error {
  readonly code = "CONFIG" as const;
  constructor(readonly problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join("\n"));
    this.name = "ConfigError";
  }
}

/** A raw value a source holds for a setting, and how the source names it. */
export interface RawSetting {
  value: unknown;
  source: string | null;
  /** The key as the source spells it, when not the table's key (another case, another name). */
  key?: string;
}

/** Finds a setting's raw value in a source; undefined when the source does not set it. */
export type SettingLookup = (key: string) => RawSetting | undefined;

/**
 * Reads every setting through `lookup`: absent ones get their default. Returns the settings, or every problem
 * found (each value of the wrong form, each required one missing, then the table's checks across settings,
 * which judge the settings that were read with defaults standing in for the refused ones).
 */
export function parseTable<E extends Entries>(
  table: ConfigTable<E>,
  lookup: SettingLookup,
): { config: ConfigOf<E>; problems: [] } | { config: null; problems: ConfigProblem[] } {
  const out: Record<string, unknown> = {};
  const problems: ConfigProblem[] = [];
  const where = new Map<string, RawSetting>();
  const refused = new Set<string>();
  for (const row of tableRows(table)) {
    const s = row.setting;
    const raw = lookup(row.key);
    if (raw === undefined) {
      if (s.required)
        problems.push({ source: null, key: row.key, message: `not set; expected ${s.type.expected}` });
      setAt(out, row.path, copy(s.default));
      continue;
    }
    where.set(row.key, raw);
    const key = raw.key ?? row.key;
    const value = s.type.parse(raw.value);
    const failed = value === undefined ? s.type.expected : (s.check?.(value) ?? null);
    if (failed !== null) {
      problems.push({ source: raw.source, key, message: expectedGot(failed, raw.value) });
      refused.add(row.key);
      // The default stands in, so the checks across settings still judge the others.
      setAt(out, row.path, copy(s.default));
      continue;
    }
    setAt(out, row.path, value);
  }
  for (const p of table.check?.(out as ConfigOf<E>) ?? [])
    if (!refused.has(p.key)) {
      const raw = where.get(p.key);
      problems.push({
        source: raw?.source ?? null,
        key: raw?.key ?? p.key,
        message: expectedGot(p.expected, raw?.value ?? p.got),
      });
    }
  return problems.length === 0 ? { config: out as ConfigOf<E>, problems: [] } : { config: null, problems };
}

/** A lookup into a parsed TOML document by dotted key (`api.enable`). */
export function tomlLookup(doc: Record<string, unknown>, source: string): SettingLookup {
  return (key) => {
    let cur: unknown = doc;
    for (const part of key.split(".")) {
      if (cur === null || typeof cur !== "object" || Array.isArray(cur)) return undefined;
      cur = (cur as Record<string, unknown>)[part];
    }
    return cur === undefined ? undefined : { value: cur, source };
  };
}

const RULE = "#".repeat(79);

function banner(title: string): string[] {
  const inner = 79 - 6;
  const left = Math.floor((inner - title.length) / 2);
  return [RULE, `###${" ".repeat(left)}${title}${" ".repeat(inner - left - title.length)}###`, RULE];
}

/** `text` as `# ` comment lines no wider than `width`. */
function commentLines(text: string, width = 110): string[] {
  const lines: string[] = [];
  let line = "#";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line.length + 1 + word.length > width && line !== "#") {
      lines.push(line);
      line = "#";
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

/** The comment of a setting: its description, then its unit. */
export function settingComment(s: Setting<unknown>): string {
  return s.unit ? `${s.doc} In ${s.unit}.` : s.doc;
}

/** A commented TOML file of the settings: each key under its description, sections under banners. */
export function renderToml<E extends Entries>(
  table: ConfigTable<E>,
  config: ConfigOf<E>,
  header: readonly string[],
): string {
  const out: string[] = header.flatMap((h) => commentLines(h));
  let current: Section<Entries> | null | undefined;
  for (const row of tableRows(table)) {
    let gap = [""];
    if (row.section !== current) {
      current = row.section;
      const title = current ? current.title : table.title;
      if (title) out.push("", ...banner(title));
      if (current) {
        out.push("", `[${current.section}]`);
        gap = [];
      }
    }
    const type = row.setting.type;
    if (!type.toml) throw new Error(`${table.name}: ${row.key} has a type with no TOML form`);
    const value = getAt(config as Record<string, unknown>, row.path);
    out.push(
      ...gap,
      ...commentLines(settingComment(row.setting)),
      `${row.setting.name} = ${type.toml(value)}`,
    );
  }
  return `${out.join("\n")}\n`;
}

/** One column of a docs table: its heading and its cell for a row. */
export interface DocColumn {
  title: string;
  cell(row: TableRow): string;
}

const escapeCell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** The settings as a Markdown table. */
export function markdownTable(table: ConfigTable<Entries>, columns: readonly DocColumn[]): string {
  const lines = [
    `| ${columns.map((c) => c.title).join(" | ")} |`,
    `|${columns.map(() => "---|").join("")}`,
    ...tableRows(table).map((row) => `| ${columns.map((c) => escapeCell(c.cell(row))).join(" | ")} |`),
  ];
  return `${lines.join("\n")}\n`;
}

/** The default as docs show it: its text, else the value in code style, empty for an empty value. */
export function defaultCell(row: TableRow): string {
  const s = row.setting;
  if (s.defaultText !== undefined) return s.defaultText;
  if (s.required) return "required";
  const shown = s.type.show(s.default);
  return shown === "" ? "" : `\`${shown}\``;
}

const regionStart = (id: string) => `<!-- generated: ${id} -->`;
const regionEnd = (id: string) => `<!-- end generated: ${id} -->`;

/**
 * The document with each region's body put between its `<!-- generated: id -->` and
 * `<!-- end generated: id -->` lines, so docs keep their prose and take their tables from the code.
 */
export function withGeneratedRegions(doc: string, regions: Record<string, string>): string {
  let out = doc;
  for (const [id, body] of Object.entries(regions)) {
    const start = out.indexOf(regionStart(id));
    const end = out.indexOf(regionEnd(id));
    if (start < 0 || end < start)
      throw new Error(`no region "${id}" (${regionStart(id)} ... ${regionEnd(id)})`);
    out = `${out.slice(0, start + regionStart(id).length)}\n${body}${out.slice(end)}`;
  }
  return out;
}
