/** One entry of a scan: [key within the store, value]. */
export type ScanEntry = [Uint8Array, Uint8Array];

/** A scan longer than this is read from LevelDB each time: caching it would hold a large copy for little gain. */
export const MAX_CACHED_SCAN_ENTRIES = 100;

/**
 * Values and small whole scans the state store has read, by an id naming the read (store, key or range, and
 * height when it is a past one). Queries ask for the same few keys and ranges (an account's balances) over and
 * over. Bounded: past its size it starts over rather than grow. Readers get copies, so no reader can change
 * what another one reads.
 */
export class ReadCache {
  private readonly values = new Map<string, Uint8Array | null>();
  private readonly scans = new Map<string, ScanEntry[]>();

  /** `maxEntries` 0 turns the cache off (to measure uncached reads). */
  constructor(private readonly maxEntries: number) {}

  /** A value read before (null: absent), or undefined when it was not. */
  getValue(id: string): Uint8Array | null | undefined {
    const v = this.values.get(id);
    return v ? new Uint8Array(v) : v;
  }

  setValue(id: string, value: Uint8Array | undefined): void {
    if (this.maxEntries === 0) return;
    if (this.values.size >= this.maxEntries) this.values.clear();
    this.values.set(id, value === undefined ? null : new Uint8Array(value));
  }

  /**
   * The scan `id` as read before, or as `read` gives it; one read to its end is kept if it has at most
   * MAX_CACHED_SCAN_ENTRIES entries and `stillValid()` says what it read is what `id` names. Looked up when the
   * iteration starts; a kept scan is handed out without a generator (a query's page is usually one).
   */
  scan(
    id: string,
    read: () => AsyncIterable<ScanEntry>,
    stillValid: () => boolean,
  ): AsyncIterable<ScanEntry> {
    return {
      [Symbol.asyncIterator]: () => {
        const hit = this.scans.get(id);
        return hit ? copiesOf(hit) : this.readAndKeep(id, read, stillValid)[Symbol.asyncIterator]();
      },
    };
  }

  private async *readAndKeep(
    id: string,
    read: () => AsyncIterable<ScanEntry>,
    stillValid: () => boolean,
  ): AsyncIterable<ScanEntry> {
    let kept: ScanEntry[] | null = this.maxEntries > 0 ? [] : null;
    for await (const entry of read()) {
      if (kept && kept.length < MAX_CACHED_SCAN_ENTRIES) kept.push([entry[0].slice(), entry[1].slice()]);
      else kept = null;
      yield entry;
    }
    if (!kept || !stillValid()) return;
    if (this.scans.size >= this.maxEntries / MAX_CACHED_SCAN_ENTRIES) this.scans.clear();
    this.scans.set(id, kept);
  }

  clear(): void {
    this.values.clear();
    this.scans.clear();
  }
}

/** Copies of kept entries, one at each step. */
function copiesOf(entries: readonly ScanEntry[]): AsyncIterator<ScanEntry> {
  let i = 0;
  return {
    next: () =>
      Promise.resolve(
        i < entries.length
          ? { done: false, value: [entries[i][0].slice(), entries[i++][1].slice()] }
          : { done: true, value: undefined },
      ),
  };
}
