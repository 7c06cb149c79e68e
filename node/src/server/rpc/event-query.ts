/**
 * CometBFT's event query language, as its pubsub evaluates it for subscriptions: conditions joined by AND, each
 * `tag op operand` with op one of = < <= > >= CONTAINS, or `tag EXISTS`. Operands are 'quoted strings', numbers
 * (`\d+(\.\d+)?`), `DATE yyyy-mm-dd` and `TIME <RFC 3339>`; ordering compares numbers, dates and times only.
 * An event's attributes arrive flattened as CometBFT publishes them: `{ "type.key": [values] }`.
 */

type Operand =
  | { kind: "string"; text: string }
  | { kind: "number"; text: string }
  | { kind: "date" | "time"; text: string; ms: number };

type Op = "=" | "<" | "<=" | ">" | ">=" | "CONTAINS" | "EXISTS";

interface Condition {
  tag: string;
  op: Op;
  arg?: Operand;
}

/** Events flattened by composite key, as CometBFT's event bus publishes them. */
export type FlatEvents = Readonly<Record<string, readonly string[]>>;

export class EventQueryError extends Error {}

const TAG_FIRST = /[\p{L}_]/u;
const TAG_REST = /[\p{L}\p{N}._-]/u;

/** One lexical token of a query. */
type Token =
  | { t: "tag"; text: string; at: number }
  | { t: "op"; text: Op; at: number }
  | { t: "and"; at: number }
  | { t: "arg"; arg: Operand; at: number };

function scan(q: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < q.length) {
    const ch = q[i];
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    const at = i;
    if (ch === "'") {
      const end = q.indexOf("'", i + 1);
      if (end < 0) throw new EventQueryError(`offset ${at}: unterminated string`);
      out.push({ t: "arg", arg: { kind: "string", text: q.slice(i + 1, end) }, at });
      i = end + 1;
    } else if (ch >= "0" && ch <= "9") {
      const m = /^\d+(\.\d+)?/.exec(q.slice(i))!;
      out.push({ t: "arg", arg: { kind: "number", text: m[0] }, at });
      i += m[0].length;
    } else if (ch === "<" || ch === ">" || ch === "=") {
      const op = (q[i + 1] === "=" && ch !== "=" ? `${ch}=` : ch) as Op;
      out.push({ t: "op", text: op, at });
      i += op.length;
    } else if (TAG_FIRST.test(ch)) {
      let j = i + 1;
      while (j < q.length && TAG_REST.test(q[j])) j++;
      const word = q.slice(i, j);
      i = j;
      if (word === "AND") out.push({ t: "and", at });
      else if (word === "CONTAINS" || word === "EXISTS") out.push({ t: "op", text: word, at });
      else if (word === "DATE" || word === "TIME") {
        const rest = /^\s+(\S+)/.exec(q.slice(i));
        if (!rest) throw new EventQueryError(`offset ${at}: ${word} needs a value`);
        i += rest[0].length;
        out.push({ t: "arg", arg: timeOperand(word, rest[1], at), at });
      } else out.push({ t: "tag", text: word, at });
    } else throw new EventQueryError(`invalid input ${ch} at offset ${at}`);
  }
  return out;
}

function timeOperand(word: "DATE" | "TIME", text: string, at: number): Operand {
  const shape =
    word === "DATE"
      ? /^\d{4}-\d{2}-\d{2}$/
      : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([-+]\d{2}:\d{2}|Z)$/;
  const ms = shape.test(text) ? Date.parse(word === "DATE" ? `${text}T00:00:00Z` : text) : Number.NaN;
  if (Number.isNaN(ms))
    throw new EventQueryError(`offset ${at}: invalid ${word} value ${JSON.stringify(text)}`);
  return { kind: word === "DATE" ? "date" : "time", text, ms };
}

const describe = (tok: Token | undefined) =>
  !tok
    ? "end of input"
    : tok.t === "tag"
      ? `tag ${tok.text}`
      : tok.t === "op"
        ? tok.text
        : tok.t === "and"
          ? "AND"
          : "a value";

/** A parsed query: its conditions and the canonical text that names it among a client's subscriptions. */
export class EventQuery {
  private constructor(
    private readonly conditions: readonly Condition[],
    /** The query as CometBFT prints it back: `tag op value` terms joined by ` AND `. */
    readonly canonical: string,
  ) {}

  static parse(text: string): EventQuery {
    const toks = scan(text);
    const conditions: Condition[] = [];
    let i = 0;
    const offset = () => toks[i]?.at ?? text.length;
    for (;;) {
      const tag = toks[i];
      if (tag?.t !== "tag") throw new EventQueryError(`offset ${offset()}: got ${describe(tag)}, wanted tag`);
      i++;
      const op = toks[i];
      if (op?.t !== "op")
        throw new EventQueryError(`offset ${offset()}: got ${describe(op)}, wanted an operator or EXISTS`);
      i++;
      if (op.text === "EXISTS") conditions.push({ tag: tag.text, op: "EXISTS" });
      else {
        const arg = toks[i];
        if (arg?.t !== "arg")
          throw new EventQueryError(`offset ${offset()}: got ${describe(arg)}, wanted a value`);
        i++;
        if (op.text === "CONTAINS" ? arg.arg.kind !== "string" : op.text !== "=" && arg.arg.kind === "string")
          throw new EventQueryError(`offset ${arg.at}: unexpected operator ${op.text} for ${arg.arg.kind}`);
        conditions.push({ tag: tag.text, op: op.text, arg: arg.arg });
      }
      if (i === toks.length) break;
      if (toks[i].t !== "and")
        throw new EventQueryError(`offset ${offset()}: got ${describe(toks[i])}, want AND`);
      i++;
    }
    return new EventQuery(conditions, conditions.map(conditionText).join(" AND "));
  }

  /** Whether every condition is on `tag`: a search on block heights alone need read no events. */
  onlyOn(tag: string): boolean {
    return this.conditions.every((c) => c.tag === tag);
  }

  /**
   * The integers `tag` may take for the query to hold, narrowed from [min, max] by its numeric conditions
   * (`block.height >= 5 AND block.height < 9` gives [5, 8]), so a search walks only that range.
   */
  range(tag: string, min: number, max: number): { min: number; max: number } {
    for (const c of this.conditions) {
      if (c.tag !== tag || c.arg?.kind !== "number") continue;
      const n = Number(c.arg.text);
      if (c.op === "=") {
        if (!Number.isInteger(n)) return { min: 1, max: 0 };
        [min, max] = [Math.max(min, n), Math.min(max, n)];
      } else if (c.op === ">") min = Math.max(min, Math.floor(n) + 1);
      else if (c.op === ">=") min = Math.max(min, Math.ceil(n));
      else if (c.op === "<") max = Math.min(max, Math.ceil(n) - 1);
      else if (c.op === "<=") max = Math.min(max, Math.floor(n));
    }
    return { min, max };
  }

  /** Whether the events satisfy every condition (and there are events at all, as CometBFT requires). */
  matches(events: FlatEvents): boolean {
    const keys = Object.keys(events);
    if (keys.length === 0) return false;
    return this.conditions.every((c) => {
      const values = events[c.tag];
      if (values?.some((v) => test(c, v))) return true;
      // A tag naming an event type rather than an attribute is tested against the empty value (EXISTS holds).
      return keys.some((k) => k.slice(0, k.lastIndexOf(".")) === c.tag) && test(c, "");
    });
  }
}

function conditionText(c: Condition): string {
  if (!c.arg) return `${c.tag} EXISTS`;
  const a = c.arg;
  const value =
    a.kind === "string" ? `'${a.text}'` : a.kind === "number" ? a.text : `${a.kind.toUpperCase()} ${a.text}`;
  return `${c.tag} ${c.op} ${value}`;
}

function test(c: Condition, value: string): boolean {
  const arg = c.arg;
  if (!arg) return true;
  if (arg.kind === "string") return c.op === "CONTAINS" ? value.includes(arg.text) : value === arg.text;
  let cmp: number;
  if (arg.kind === "number") {
    // CometBFT reads the leading number of the value ("100stake" is 100); a value with none never matches.
    const lead = /^\d+(\.\d+)?/.exec(value);
    if (!lead) return false;
    cmp = compareDecimals(lead[0], arg.text);
  } else {
    const ms = Date.parse(
      arg.kind === "date" && /^\d{4}-\d{2}-\d{2}$/.test(value) ? `${value}T00:00:00Z` : value,
    );
    if (Number.isNaN(ms)) return false;
    cmp = Math.sign(ms - arg.ms);
  }
  switch (c.op) {
    case "=":
      return cmp === 0;
    case "<":
      return cmp < 0;
    case "<=":
      return cmp <= 0;
    case ">":
      return cmp > 0;
    case ">=":
      return cmp >= 0;
    default:
      return false;
  }
}

/** Compares two unsigned decimals (`\d+(\.\d+)?`) exactly, whatever their length. */
function compareDecimals(a: string, b: string): number {
  const [ai, af = ""] = a.split(".");
  const [bi, bf = ""] = b.split(".");
  const ia = ai.replace(/^0+(?=\d)/, "");
  const ib = bi.replace(/^0+(?=\d)/, "");
  if (ia.length !== ib.length) return ia.length < ib.length ? -1 : 1;
  if (ia !== ib) return ia < ib ? -1 : 1;
  const n = Math.max(af.length, bf.length);
  const fa = af.padEnd(n, "0");
  const fb = bf.padEnd(n, "0");
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}
