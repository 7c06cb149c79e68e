import { readFileSync } from "node:fs";
import { parse } from "smol-toml";

export type TomlTable = Record<string, unknown>;

/** Reads a TOML file; a syntax error names the file and the position smol-toml reports. */
export function readTomlFile(path: string): TomlTable {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new Error(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  try {
    return parse(text) as TomlTable;
  } catch (e) {
    throw new Error(`invalid TOML in ${path}: ${(e as Error).message.split("\n")[0]}`);
  }
}

/** Typed access to a parsed TOML table whose errors name the file and the dotted key. */
export class TomlReader {
  constructor(
    private readonly table: TomlTable,
    private readonly file: string,
  ) {}

  private raw(key: string): unknown {
    let cur: unknown = this.table;
    for (const part of key.split(".")) {
      if (cur === null || typeof cur !== "object") return undefined;
      cur = (cur as TomlTable)[part];
    }
    return cur;
  }

  private fail(key: string, want: string, got: unknown): never {
    throw new Error(`${this.file}: ${key} must be ${want}, got ${JSON.stringify(got)}`);
  }

  string(key: string, def: string): string {
    const v = this.raw(key);
    if (v === undefined) return def;
    if (typeof v !== "string") this.fail(key, "a string", v);
    return v;
  }

  bool(key: string, def: boolean): boolean {
    const v = this.raw(key);
    if (v === undefined) return def;
    if (typeof v !== "boolean") this.fail(key, "true or false", v);
    return v;
  }

  /** Integers may be written as numbers or, as Cosmos templates do for some keys, as strings. */
  int(key: string, def: number, min = 0): number {
    const v = this.raw(key);
    if (v === undefined) return def;
    const n =
      typeof v === "string" && /^-?\d+$/.test(v.trim()) ? Number(v) : typeof v === "bigint" ? Number(v) : v;
    if (typeof n !== "number" || !Number.isSafeInteger(n) || n < min)
      this.fail(key, `an integer >= ${min}`, v);
    return n;
  }
}
