/**
 * The per-key history index, as pure logic over its records. Heights split into ranges of 1024 (level 1),
 * 1024^2 (level 2) and 1024^3 (level 3). A key's node at level k and range x exists once one of its child ranges
 * is closed, i.e. the key changed there and later changed again past it: a level-1 node lists the change heights
 * in its range, a level-2 or level-3 node the last change of each closed child; each also holds `prev`, the last
 * change before its range (0: none). The range of the newest change is open and lives in the key's head record,
 * read by every lookup, so a read at or after the newest change, or within its range, needs nothing else.
 */

export const INDEX_LEVELS = 3;
const RANGE_BITS = 10;

/** The range at `level` holding `height`. */
export function rangeOf(level: number, height: number): number {
  return Math.floor(height / 2 ** (RANGE_BITS * level));
}

function rangeStart(level: number, range: number): number {
  return range * 2 ** (RANGE_BITS * level);
}

/** A node: the heights it lists (ascending) and the last change before its range. */
export interface IndexNode {
  prev: number;
  heights: number[];
}

/** A node at (level, range) from the index records, or undefined when there is none. */
export type NodeReader = (level: number, range: number) => IndexNode | undefined;

/** Offsets within a level-1 range fit 2 bytes; within a level-2 or level-3 range, 4. */
const offsetWidth = (level: number) => (level === 1 ? 2 : 4);

function writeUint64(view: DataView, at: number, n: number): void {
  view.setUint32(at, Math.floor(n / 2 ** 32));
  view.setUint32(at + 4, n >>> 0);
}

function readUint64(view: DataView, at: number): number {
  return view.getUint32(at) * 2 ** 32 + view.getUint32(at + 4);
}

/** prev (8 bytes) then each height as an offset from its range's start; `lead` bytes left free before them. */
function encodeNodeAfter(lead: number, level: number, range: number, node: IndexNode): Uint8Array {
  const width = offsetWidth(level);
  const start = rangeStart(level, range);
  const out = new Uint8Array(lead + 8 + node.heights.length * width);
  const view = new DataView(out.buffer);
  writeUint64(view, lead, node.prev);
  let at = lead + 8;
  for (const h of node.heights) {
    if (width === 2) view.setUint16(at, h - start);
    else view.setUint32(at, h - start);
    at += width;
  }
  return out;
}

export function encodeNode(level: number, range: number, node: IndexNode): Uint8Array {
  return encodeNodeAfter(0, level, range, node);
}

export function decodeNode(level: number, range: number, bytes: Uint8Array): IndexNode {
  const width = offsetWidth(level);
  const start = rangeStart(level, range);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const heights: number[] = [];
  for (let at = 8; at + width <= bytes.length; at += width)
    heights.push(start + (width === 2 ? view.getUint16(at) : view.getUint32(at)));
  return { prev: readUint64(view, 0), heights };
}

/** The head: its level-1 range (8 bytes), then that range's open node. */
export function encodeHead(head: IndexNode): Uint8Array {
  const range = rangeOf(1, head.heights[head.heights.length - 1]);
  const out = encodeNodeAfter(8, 1, range, head);
  writeUint64(new DataView(out.buffer), 0, range);
  return out;
}

export function decodeHead(bytes: Uint8Array): IndexNode {
  const range = readUint64(new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength), 0);
  return decodeNode(1, range, bytes.subarray(8));
}

export const newestChange = (head: IndexNode): number => head.heights[head.heights.length - 1];

/** The largest of the ascending `heights` that is <= `height`, or undefined. */
function lastAtOrBefore(heights: number[], height: number): number | undefined {
  let lo = 0;
  let hi = heights.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (heights[mid] <= height) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? undefined : heights[lo - 1];
}

/**
 * The height of the key's newest change at or before `height` (0: it had none), or null when the records cannot
 * tell (a height past level 3's first range in a range the key never changed in): then ask the versions.
 */
export function changeAtOrBefore(
  head: IndexNode | undefined,
  height: number,
  node: NodeReader,
): number | null {
  if (!head) return 0;
  const newest = newestChange(head);
  if (height >= newest) return newest;
  if (rangeOf(1, height) === rangeOf(1, newest)) return lastAtOrBefore(head.heights, height) ?? head.prev;
  // The first node that exists on the way up: every child of it before the height's child is closed (the key
  // changed after `height`) and the height's own child has no change at or before it.
  for (let level = 1; level <= INDEX_LEVELS; level++) {
    const n = node(level, rangeOf(level, height));
    if (n) return lastAtOrBefore(n.heights, height) ?? n.prev;
  }
  return rangeOf(INDEX_LEVELS, height) === 0 ? 0 : null;
}

/** A node to write: put, or (with node null) delete. */
export interface NodeWrite {
  level: number;
  range: number;
  node: IndexNode | null;
}

/** The nodes `recordChange` reads for a change at `height`: the parents that a closing range is listed in. */
export function parentsToRead(head: IndexNode | undefined, height: number): [number, number][] {
  if (!head) return [];
  const newest = newestChange(head);
  const out: [number, number][] = [];
  for (let level = 1; level < INDEX_LEVELS && rangeOf(level, height) !== rangeOf(level, newest); level++)
    out.push([level + 1, rangeOf(level + 1, newest)]);
  return out;
}

/**
 * A change at `height` (above the head's newest): within the head's range it is appended; past it the head's node
 * closes (written as a level-1 node), is listed in its parent (made when missing), and so on up while the parent
 * closes too. Returns the new head and the nodes to write.
 */
export function recordChange(
  head: IndexNode | undefined,
  height: number,
  node: NodeReader,
): { head: IndexNode; writes: NodeWrite[] } {
  if (!head) return { head: { prev: 0, heights: [height] }, writes: [] };
  const newest = newestChange(head);
  if (rangeOf(1, height) === rangeOf(1, newest))
    return { head: { prev: head.prev, heights: [...head.heights, height] }, writes: [] };
  const writes: NodeWrite[] = [{ level: 1, range: rangeOf(1, newest), node: head }];
  let closing = head;
  for (let level = 2; level <= INDEX_LEVELS; level++) {
    const range = rangeOf(level, newest);
    const parent = node(level, range) ?? { prev: closing.prev, heights: [] };
    closing = { prev: parent.prev, heights: [...parent.heights, newest] };
    writes.push({ level, range, node: closing });
    if (rangeOf(level, height) === range) break;
  }
  return { head: { prev: newest, heights: [height] }, writes };
}

/** The nodes `undoChange` reads to take the change at the head's newest height back. */
export function nodesToUndo(head: IndexNode): [number, number][] {
  if (head.heights.length > 1 || head.prev === 0) return [];
  const newest = newestChange(head);
  const out: [number, number][] = [];
  for (let level = 1; level <= INDEX_LEVELS; level++) {
    out.push([level, rangeOf(level, head.prev)]);
    if (level > 1 && rangeOf(level, newest) === rangeOf(level, head.prev)) break;
  }
  return out;
}

/**
 * The inverse of `recordChange` for the head's newest change (a rollback): the new head (null: the key had no
 * earlier change) and the nodes to write; null when the records are not what that change left.
 */
export function undoChange(
  head: IndexNode,
  node: NodeReader,
): { head: IndexNode | null; writes: NodeWrite[] } | null {
  if (head.heights.length > 1)
    return { head: { prev: head.prev, heights: head.heights.slice(0, -1) }, writes: [] };
  const before = head.prev;
  if (before === 0) return { head: null, writes: [] };
  const newest = newestChange(head);
  const reopened = node(1, rangeOf(1, before));
  if (!reopened || newestChange(reopened) !== before) return null;
  const writes: NodeWrite[] = [{ level: 1, range: rangeOf(1, before), node: null }];
  for (let level = 2; level <= INDEX_LEVELS; level++) {
    const range = rangeOf(level, before);
    const parent = node(level, range);
    if (!parent || newestChange(parent) !== before) return null;
    const heights = parent.heights.slice(0, -1);
    writes.push({ level, range, node: heights.length > 0 ? { prev: parent.prev, heights } : null });
    if (rangeOf(level, newest) === range) break;
  }
  return { head: reopened, writes };
}

/**
 * The nodes pruning may drop once a change at `changedAt` is the oldest readable one: those of the change before it
 * (`before`) that lie wholly below `changedAt`'s ranges. No read at or after `changedAt`, no later change and no
 * rollback to a retained height reaches them.
 */
export function nodesBelow(before: number, changedAt: number): [number, number][] {
  const out: [number, number][] = [];
  if (before === 0) return out;
  for (let level = 1; level <= INDEX_LEVELS; level++)
    if (rangeOf(level, before) !== rangeOf(level, changedAt)) out.push([level, rangeOf(level, before)]);
  return out;
}
