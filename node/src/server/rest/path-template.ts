/** One segment of a google.api.http path template. */
type Segment = { literal: string } | { field: string; rest: boolean };

/**
 * A google.api.http path template (`/sdk/bank/v1beta1/balances/{address}/by_denom`): literal segments and
 * `{field}` variables (one segment, or every remaining segment for `{field=**}`); the field may be dotted
 * (`{pagination.key}`) to fill a nested message.
 */
export class PathTemplate {
  private readonly hasRest: boolean;
  /** Literal segments: the more a template has, the more specific it is. */
  readonly literalCount: number;

  private constructor(
    readonly template: string,
    private readonly segments: readonly Segment[],
  ) {
    this.hasRest = segments.some((s) => "field" in s && s.rest);
    this.literalCount = segments.filter((s) => "literal" in s).length;
  }

  static parse(template: string): PathTemplate {
    if (!template.startsWith("/"))
      throw new Error(`http path ${JSON.stringify(template)} must start with "/"`);
    // A `:verb` suffix is part of the last literal here; none of our annotations use one.
    const parts = template.slice(1).split("/");
    const segments = parts.map((p): Segment => {
      const m = p.match(/^\{([A-Za-z_][\w.]*)(?:=([^}]*))?\}$/);
      if (!m) return { literal: p };
      const pattern = m[2] ?? "*";
      if (pattern !== "*" && pattern !== "**")
        throw new Error(
          `http path ${JSON.stringify(template)}: variable pattern ${pattern} is not supported`,
        );
      return { field: m[1], rest: pattern === "**" };
    });
    return new PathTemplate(template, segments);
  }

  /** Field paths bound by the path, in order (`["address"]`). */
  get fields(): string[] {
    return this.segments.flatMap((s) => ("field" in s ? [s.field] : []));
  }

  /** The same template under another first segment (`/sdk/...` -> `/cosmos/...`). */
  withPrefix(prefix: string): PathTemplate {
    const [first, ...rest] = this.segments;
    if (!first || !("literal" in first)) return this;
    return new PathTemplate(`/${[prefix, ...this.template.split("/").slice(2)].join("/")}`, [
      { literal: prefix },
      ...rest,
    ]);
  }

  get firstLiteral(): string | undefined {
    const first = this.segments[0];
    return first && "literal" in first ? first.literal : undefined;
  }

  /** The first `n` segments when they are all literal (`sdk/bank`), for indexing; else undefined. */
  literalPrefix(n: number): string | undefined {
    const head = this.segments.slice(0, n);
    if (head.length < n || head.some((s) => !("literal" in s))) return undefined;
    return head.map((s) => (s as { literal: string }).literal).join("/");
  }

  /** Decoded variable values when the URL path matches, else null. */
  match(pathname: string): Map<string, string> | null {
    if (!pathname.startsWith("/")) return null;
    return this.matchSegments(pathname.slice(1).split("/"));
  }

  /** As `match`, for a path already split into its segments (without the leading "/"). */
  matchSegments(parts: readonly string[]): Map<string, string> | null {
    // Without a `**` the segment counts must agree and every literal sit in its place: the cheap test that
    // rules out most templates before anything is decoded.
    if (!this.hasRest) {
      if (parts.length !== this.segments.length) return null;
      for (let j = 0; j < parts.length; j++) {
        const s = this.segments[j];
        if ("literal" in s && parts[j] !== s.literal) return null;
      }
    }
    const values = new Map<string, string>();
    let i = 0;
    for (const s of this.segments) {
      if ("literal" in s) {
        if (parts[i] !== s.literal) return null;
        i++;
        continue;
      }
      if (s.rest) {
        if (i >= parts.length) return null;
        values.set(s.field, decode(parts.slice(i).join("/")));
        i = parts.length;
        continue;
      }
      const part = parts[i];
      if (part === undefined || part === "") return null;
      values.set(s.field, decode(part));
      i++;
    }
    return i === parts.length ? values : null;
  }
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
