import { mapKey } from "./map-key.js";
import type { IterateOptions } from "./multi-store.js";
import { prefixEnd } from "./prefix-end.js";

/** One write a branch holds: a new value, or null for a deletion. */
export interface Pending {
  key: Uint8Array;
  value: Uint8Array | null;
}

/** A node of the ordered index (an AVL tree keyed by map keys, whose string order is byte order). */
interface IndexNode {
  id: string;
  entry: Pending;
  left: IndexNode | null;
  right: IndexNode | null;
  height: number;
  /** The index generation that made it: a node of an older one may be read by a range and is copied, not changed. */
  gen: number;
}

const heightOf = (n: IndexNode | null) => (n ? n.height : 0);

function fixHeight(n: IndexNode): void {
  n.height = 1 + Math.max(heightOf(n.left), heightOf(n.right));
}

/**
 * The writes of one store branch: a map for reads, and an ordered index for iterations so that an iteration
 * over k of a branch's n writes costs O(log n + k), however many writes came before it. The index is built
 * by the first iteration (a branch that never iterates pays nothing for it) and brought up to date by each
 * later one with the writes made since, O(log n) each. An iteration walks the index as it stood when it
 * started: later writes copy the nodes they would change rather than change them under it.
 */
export class BranchWrites {
  private readonly byId = new Map<string, Pending>();
  private root: IndexNode | null = null;
  private indexed = false;
  /** Ids written since the index was last brought up to date (only while there is an index). */
  private readonly unindexed = new Set<string>();
  private gen = 0;

  get size(): number {
    return this.byId.size;
  }

  get(id: string): Pending | undefined {
    return this.byId.get(id);
  }

  set(id: string, p: Pending): void {
    this.byId.set(id, p);
    if (this.indexed) this.unindexed.add(id);
  }

  entries(): IterableIterator<[string, Pending]> {
    return this.byId.entries();
  }

  clear(): void {
    this.byId.clear();
    this.unindexed.clear();
    this.root = null;
    this.indexed = false;
  }

  /** The writes within `opts` (prefix, start, end), in key order or reversed, as they stand now. */
  range(opts: IterateOptions): Iterator<Pending> {
    this.catchUp();
    const root = this.root;
    // Every node so far may now be read by this range until it ends: later writes copy them.
    this.gen++;
    const { lo, hi } = stringBounds(opts);
    return opts.reverse ? descending(root, lo, hi) : ascending(root, lo, hi);
  }

  private catchUp(): void {
    if (!this.indexed) {
      const ids = [...this.byId.keys()].sort();
      this.root = this.build(ids, 0, ids.length);
      this.indexed = true;
      return;
    }
    for (const id of this.unindexed) this.root = this.insert(this.root, id, this.byId.get(id)!);
    this.unindexed.clear();
  }

  /** A balanced tree of ids[from, to), already sorted. */
  private build(ids: string[], from: number, to: number): IndexNode | null {
    if (from >= to) return null;
    const mid = (from + to) >>> 1;
    const n: IndexNode = {
      id: ids[mid],
      entry: this.byId.get(ids[mid])!,
      left: this.build(ids, from, mid),
      right: this.build(ids, mid + 1, to),
      height: 1,
      gen: this.gen,
    };
    fixHeight(n);
    return n;
  }

  private insert(n: IndexNode | null, id: string, entry: Pending): IndexNode {
    if (!n) return { id, entry, left: null, right: null, height: 1, gen: this.gen };
    const m = this.own(n);
    if (id === m.id) m.entry = entry;
    else if (id < m.id) m.left = this.insert(m.left, id, entry);
    else m.right = this.insert(m.right, id, entry);
    return this.balance(m);
  }

  /** `n` itself when this generation made it, else a copy that may be changed. */
  private own(n: IndexNode): IndexNode {
    if (n.gen === this.gen) return n;
    return { id: n.id, entry: n.entry, left: n.left, right: n.right, height: n.height, gen: this.gen };
  }

  private balance(m: IndexNode): IndexNode {
    const lh = heightOf(m.left);
    const rh = heightOf(m.right);
    if (lh > rh + 1) {
      const l = this.own(m.left!);
      m.left = heightOf(l.left) < heightOf(l.right) ? this.rotateLeft(l) : l;
      return this.rotateRight(m);
    }
    if (rh > lh + 1) {
      const r = this.own(m.right!);
      m.right = heightOf(r.right) < heightOf(r.left) ? this.rotateRight(r) : r;
      return this.rotateLeft(m);
    }
    fixHeight(m);
    return m;
  }

  private rotateRight(m: IndexNode): IndexNode {
    const l = this.own(m.left!);
    m.left = l.right;
    l.right = m;
    fixHeight(m);
    fixHeight(l);
    return l;
  }

  private rotateLeft(m: IndexNode): IndexNode {
    const r = this.own(m.right!);
    m.right = r.left;
    r.left = m;
    fixHeight(m);
    fixHeight(r);
    return r;
  }
}

/** An iteration's range as map keys: `lo` inclusive, `hi` exclusive, either open. */
function stringBounds(o: IterateOptions): { lo?: string; hi?: string } {
  let lo: string | undefined;
  let hi: string | undefined;
  if (o.prefix && o.prefix.length > 0) {
    lo = mapKey(o.prefix);
    const end = prefixEnd(o.prefix);
    if (end) hi = mapKey(end);
  }
  if (o.start) {
    const s = mapKey(o.start);
    if (lo === undefined || s > lo) lo = s;
  }
  if (o.end) {
    const e = mapKey(o.end);
    if (hi === undefined || e < hi) hi = e;
  }
  return { lo, hi };
}

function* ascending(root: IndexNode | null, lo?: string, hi?: string): Generator<Pending> {
  const stack: IndexNode[] = [];
  for (let n = root; n; ) {
    if (lo === undefined || n.id >= lo) {
      stack.push(n);
      n = n.left;
    } else n = n.right;
  }
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (hi !== undefined && top.id >= hi) return;
    yield top.entry;
    for (let n = top.right; n; n = n.left) stack.push(n);
  }
}

function* descending(root: IndexNode | null, lo?: string, hi?: string): Generator<Pending> {
  const stack: IndexNode[] = [];
  for (let n = root; n; ) {
    if (hi === undefined || n.id < hi) {
      stack.push(n);
      n = n.right;
    } else n = n.left;
  }
  for (let top = stack.pop(); top; top = stack.pop()) {
    if (lo !== undefined && top.id < lo) return;
    yield top.entry;
    for (let n = top.left; n; n = n.right) stack.push(n);
  }
}
