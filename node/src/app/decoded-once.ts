/**
 * The last stored value of one record, decoded once: module params are read by every tx and change only through
 * governance. Callers share the decoded object (frozen), so they copy it to make new params.
 */
export class DecodedOnce<T> {
  private last: { raw: Uint8Array; value: T } | undefined;

  constructor(private readonly decode: (raw: Uint8Array) => T) {}

  of(raw: Uint8Array): T {
    if (!this.last || Buffer.compare(this.last.raw, raw) !== 0)
      // Frozen: a caller changing it in place would change it for every later reader; this makes that throw.
      this.last = { raw: raw.slice(), value: Object.freeze(this.decode(raw)) };
    return this.last.value;
  }
}
