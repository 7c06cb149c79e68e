/**
 * ABCI's socket framing, as CometBFT's protoio writes it: each message behind an unsigned varint of its length.
 * The reader takes bytes as they arrive and hands out whole frames; a frame longer than `maxFrameBytes`, or a
 * length that is no varint, is an error that names it (the stream cannot be trusted past it).
 */
export class AbciFrameError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AbciFrameError";
  }
}

/** A varint of more than this many bytes cannot hold a length below 2^63. */
const MAX_VARINT_BYTES = 10;

export class AbciFrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Takes the bytes that arrived; answers every frame they complete, in order. */
  push(bytes: Buffer): Uint8Array[] {
    this.chunks.push(bytes);
    this.buffered += bytes.length;
    const frames: Uint8Array[] = [];
    for (;;) {
      const head = this.peekLength();
      if (head === null || this.buffered < head.prefix + head.length) return frames;
      const all = this.take(head.prefix + head.length);
      frames.push(all.subarray(head.prefix));
    }
  }

  /** The next frame's length and the size of its prefix; null until the whole prefix has arrived. */
  private peekLength(): { length: number; prefix: number } | null {
    let length = 0;
    let shift = 1;
    let i = 0;
    for (const chunk of this.chunks) {
      for (const byte of chunk) {
        i++;
        length += (byte & 0x7f) * shift;
        if (byte < 0x80) {
          if (length > this.maxFrameBytes)
            throw new AbciFrameError(
              `an ABCI message of ${length} bytes is over the ${this.maxFrameBytes} allowed`,
            );
          return { length, prefix: i };
        }
        if (i >= MAX_VARINT_BYTES) throw new AbciFrameError("an ABCI message length is not a varint");
        shift *= 128;
      }
    }
    return null;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }
}

/** One message as a frame: its length as an unsigned varint, then the message. */
export function abciFrame(message: Uint8Array): Buffer {
  const prefix: number[] = [];
  let n = message.length;
  for (; n >= 0x80; n = Math.floor(n / 128)) prefix.push((n % 128) | 0x80);
  prefix.push(n);
  const out = Buffer.allocUnsafe(prefix.length + message.length);
  out.set(prefix);
  out.set(message, prefix.length);
  return out;
}
