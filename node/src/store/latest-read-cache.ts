/** Entries of a cached scan: [key within the store, value]. */
export type ScanEntries = readonly (readonly [Uint8Array, Uint8Array])[];

/** A scan longer than this is read from LevelDB each time: caching it would hold a large copy for one block. */
export const MAX_CACHED_SCAN_ENTRIES = 100;

/**
 * Reads of the latest state since the last commit: queries ask for the same few keys and the same small ranges
 * (an account's balances) many times a block. Emptied by every commit, and bounded, so it never holds more than
 * a block's worth of hot reads. Callers hand out copies, so no reader can change what another one reads.
 */
export class LatestReadCache {
  private readonly values = new Map<string, Uint8Array | null>();
  private readonly scans = new Map<string, ScanEntries>();

  /** `maxEntries` 0 turns the cache off (to measure uncached reads). */
  constructor(private readonly maxEntries: number) {}

  getValue(id: string): Uint8Array | null | undefined {
    return this.values.get(id);
  }

  setValue(id: string, value: Uint8Array | null): void {
    if (this.maxEntries === 0) return;
    if (this.values.size >= this.maxEntries) this.values.clear();
    this.values.set(id, value);
  }

  getScan(id: string): ScanEntries | undefined {
    return this.scans.get(id);
  }

  setScan(id: string, entries: ScanEntries): void {
    if (this.maxEntries === 0 || entries.length > MAX_CACHED_SCAN_ENTRIES) return;
    if (this.scans.size >= this.maxEntries / MAX_CACHED_SCAN_ENTRIES) this.scans.clear();
    this.scans.set(id, entries);
  }

  clear(): void {
    this.values.clear();
    this.scans.clear();
  }
}

/** A cache id for bytes: latin1 maps each byte to one char, so distinct bytes give distinct ids. */
export function bytesId(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
}
