import { concatBytes } from "@chaind/core/bytes";
import { type KeyCodec, unencodable } from "./key-codec.js";

/** A codec for each element of the tuple type `T`. */
export type KeyCodecs<T extends readonly unknown[]> = { readonly [I in keyof T]: KeyCodec<T[I]> };

/** The proper leading parts of a key tuple: for [A, B, C] one of [], [A] or [A, B]. */
export type LeadingParts<T extends readonly unknown[]> = T extends readonly [...infer Head, unknown]
  ? Head | LeadingParts<Head>
  : never;

/**
 * Several parts in a row (Cosmos' Pair and Triple keys): every part but the last in its non-terminal form, so
 * the key splits back into its parts, and a key's leading parts are the prefix of every key that shares them.
 */
export class TupleKey<T extends readonly unknown[]> implements KeyCodec<T> {
  readonly name: string;

  constructor(readonly parts: KeyCodecs<T>) {
    if (parts.length === 0) throw new Error("a tuple key needs at least one part");
    this.name = `(${parts.map((p) => p.name).join(", ")})`;
  }

  encode(value: T): Uint8Array {
    this.checkArity(value.length, this.parts.length);
    const last = this.parts.length - 1;
    return concatBytes(
      ...this.parts.map((p, i) => (i < last ? p.encodeNonTerminal(value[i]) : p.encode(value[i]))),
    );
  }

  decode(bytes: Uint8Array): T {
    const out: unknown[] = [];
    let at = 0;
    const last = this.parts.length - 1;
    for (let i = 0; i < last; i++) {
      const [v, end] = this.parts[i].decodeNonTerminal(bytes, at);
      out.push(v);
      at = end;
    }
    out.push(this.parts[last].decode(bytes.subarray(at)));
    return out as unknown as T;
  }

  encodeNonTerminal(value: T): Uint8Array {
    this.checkArity(value.length, this.parts.length);
    return concatBytes(...this.parts.map((p, i) => p.encodeNonTerminal(value[i])));
  }

  decodeNonTerminal(bytes: Uint8Array, at: number): [T, number] {
    const out: unknown[] = [];
    let pos = at;
    for (const p of this.parts) {
      const [v, end] = p.decodeNonTerminal(bytes, pos);
      out.push(v);
      pos = end;
    }
    return [out as unknown as T, pos];
  }

  /** The bytes every key starting with these parts starts with: the range of, say, one proposal's votes. */
  prefixOf(...leading: LeadingParts<T>): Uint8Array {
    this.checkArity(leading.length, this.parts.length - 1, "at most");
    return concatBytes(...leading.map((v, i) => this.parts[i].encodeNonTerminal(v)));
  }

  private checkArity(got: number, want: number, how: "exactly" | "at most" = "exactly"): void {
    if (how === "exactly" ? got !== want : got > want)
      throw unencodable(`${this.name} takes ${how} ${want} part(s), got ${got}`);
  }
}

export function tupleKey<T extends readonly unknown[]>(...parts: KeyCodecs<T>): TupleKey<T> {
  return new TupleKey<T>(parts);
}
