/**
 * The last stored value of one record, decoded once: module params are read by every tx and change only through
 * governance. Callers share the decoded object, so they must not change it (copy it to make new params).
 */
export class DecodedOnce<T> {
  private last: { raw: Uint8Array; value: T } | undefined;

  constructor(private readonly decode: (raw: Uint8Array) => T) {}

  of(raw: Uint8Array): T {
    if (!this.last || Buffer.compare(this.last.raw, raw) !== 0)
      this.last = { raw: raw.slice(), value: this.decode(raw) };
    return this.last.value;
  }
}
