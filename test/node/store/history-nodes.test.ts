import { describe, expect, it } from "vitest";
import {
  changeAtOrBefore,
  decodeHead,
  decodeNode,
  encodeHead,
  encodeNode,
  type IndexNode,
  nodesBelow,
  rangeOf,
  recordChange,
  undoChange,
} from "../../../node/src/store/history-nodes.js";

/** A deterministic PRNG, so a failure can be replayed. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** One key's index held in memory, as the records would hold it. */
class MemoryIndex {
  head: IndexNode | undefined;
  nodes = new Map<string, IndexNode>();
  reader = (level: number, range: number) => this.nodes.get(`${level}/${range}`);

  record(height: number): void {
    const { head, writes } = recordChange(this.head, height, this.reader);
    this.head = head;
    for (const w of writes) this.apply(w.level, w.range, w.node);
  }

  undo(): boolean {
    const undone = undoChange(this.head!, this.reader);
    if (!undone) return false;
    this.head = undone.head ?? undefined;
    for (const w of undone.writes) this.apply(w.level, w.range, w.node);
    return true;
  }

  apply(level: number, range: number, node: IndexNode | null): void {
    // Every record goes through its encoding, as it would through LevelDB.
    if (node) this.nodes.set(`${level}/${range}`, decodeNode(level, range, encodeNode(level, range, node)));
    else this.nodes.delete(`${level}/${range}`);
  }

  at(height: number): number | null {
    const head = this.head && decodeHead(encodeHead(this.head));
    return changeAtOrBefore(head, height, this.reader);
  }

  copy(): { head: IndexNode | undefined; nodes: [string, IndexNode][] } {
    return structuredClone({ head: this.head, nodes: [...this.nodes].sort() });
  }
}

/** The newest of the ascending `changes` at or before `height`, 0 when none. */
function expected(changes: number[], height: number): number {
  let best = 0;
  for (const c of changes) if (c <= height) best = c;
  return best;
}

/** Change heights with gaps from 1 block to millions, crossing level-1, level-2 and level-3 ranges. */
function changeHeights(seed: number, count: number, start: number): number[] {
  const next = rng(seed);
  const out: number[] = [];
  let h = start;
  for (let i = 0; i < count; i++) {
    const r = next();
    h +=
      r < 0.5
        ? 1
        : r < 0.8
          ? 1 + Math.floor(next() * 50)
          : r < 0.95
            ? Math.floor(next() * 5000) + 1
            : Math.floor(next() * 3e6) + 1;
    out.push(h);
  }
  return out;
}

function probes(changes: number[], seed: number): number[] {
  const next = rng(seed);
  const out = new Set<number>([1]);
  for (const c of changes) for (const d of [-1, 0, 1]) if (c + d > 0) out.add(c + d);
  const last = changes[changes.length - 1];
  for (let i = 0; i < 2000; i++) out.add(1 + Math.floor(next() * (last + 5000)));
  for (const level of [1, 2, 3])
    for (let i = 0; i < 50; i++) {
      const edge = (Math.floor(next() * (last / 1024 ** level)) + 1) * 1024 ** level;
      for (const d of [-1, 0, 1]) out.add(edge + d);
    }
  return [...out];
}

describe("history nodes", () => {
  for (const [seed, start] of [
    [1, 0],
    [2, 1024 ** 2 - 3000],
    [3, 1024 ** 3 - 2e7],
    [4, 5],
  ]) {
    it(`find every change height a key was at (seed ${seed}, from ${start})`, () => {
      const changes = changeHeights(seed, 3000, start);
      const index = new MemoryIndex();
      for (const c of changes) index.record(c);
      let answered = 0;
      for (const h of probes(changes, seed)) {
        const got = index.at(h);
        // Only past level 3's first range may the index send a read to the versions.
        if (got === null) expect(rangeOf(3, h)).toBeGreaterThan(0);
        else {
          expect(got, `height ${h}`).toBe(expected(changes, h));
          answered++;
        }
      }
      expect(answered).toBeGreaterThan(1000);
    });

    it(`takes each change back to exactly the records before it (seed ${seed})`, () => {
      const changes = changeHeights(seed, 600, start);
      const index = new MemoryIndex();
      const before: ReturnType<MemoryIndex["copy"]>[] = [];
      for (const c of changes) {
        before.push(index.copy());
        index.record(c);
      }
      for (let i = changes.length - 1; i >= 0; i--) {
        expect(index.undo()).toBe(true);
        expect(index.copy()).toEqual(before[i]);
      }
      expect(index.head).toBeUndefined();
    });
  }

  it("keeps its records' bytes: range, prev, then offsets of 2 bytes at level 1 and 4 above", () => {
    const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
    expect(hex(encodeHead({ prev: 5, heights: [1025, 1030] }))).toBe(
      "0000000000000001" + "0000000000000005" + "00010006",
    );
    expect(hex(encodeNode(2, 1, { prev: 2 ** 40, heights: [2 ** 20 + 7] }))).toBe(
      "0000010000000000" + "00000007",
    );
    expect(decodeHead(encodeHead({ prev: 0, heights: [2 ** 50] }))).toEqual({ prev: 0, heights: [2 ** 50] });
  });

  it("refuses to undo what the records do not show", () => {
    const index = new MemoryIndex();
    for (const c of [5, 2000, 3000]) index.record(c);
    index.nodes.delete(`1/${rangeOf(1, 2000)}`);
    index.record(5000);
    expect(index.undo()).toBe(true);
    expect(index.undo()).toBe(false);
  });

  it("still answers every read at or after a pruned-to change when the nodes below it are dropped", () => {
    const changes = changeHeights(7, 3000, 0);
    const index = new MemoryIndex();
    for (const c of changes) index.record(c);
    const before = index.nodes.size;
    const earliest = changes[2000];
    // Pruning visits each change up to the new earliest height, oldest first.
    for (let i = 0; i <= 2000; i++)
      for (const [level, range] of nodesBelow(i === 0 ? 0 : changes[i - 1], changes[i]))
        index.nodes.delete(`${level}/${range}`);
    expect(index.nodes.size).toBeLessThan(before);
    for (const h of probes(changes, 7).filter((h) => h >= earliest)) {
      const got = index.at(h);
      if (got !== null) expect(got, `height ${h}`).toBe(expected(changes, h));
    }
    // A rollback of the newest change still finds what it needs.
    expect(index.undo()).toBe(true);
  });
});
