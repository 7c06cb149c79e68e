/**
 * How far the gRPC message now arriving on a stream has come. gRPC frames each message as a flag byte, a 4-byte
 * big-endian length, then that many bytes; grpc-js holds a message's bytes until the last one arrives.
 */
export class GrpcMessageProgress {
  /** Bytes of the 5-byte prefix seen so far (0: the next byte starts a message). */
  private prefixSeen = 0;
  private length = 0;
  private bodySeen = 0;

  /** Bytes of the message under way that have arrived (its prefix not counted); 0 between messages. */
  get pending(): number {
    return this.bodySeen;
  }

  /** Takes the stream's next bytes; answers how many messages they completed. */
  push(chunk: Uint8Array): number {
    let completed = 0;
    let i = 0;
    while (i < chunk.length) {
      if (this.prefixSeen < 5) {
        // Byte 0 is the compression flag; bytes 1-4 the length.
        this.length = this.prefixSeen === 0 ? 0 : this.length * 256 + chunk[i];
        this.prefixSeen++;
        i++;
        if (this.prefixSeen === 5 && this.length === 0) {
          this.prefixSeen = 0;
          completed++;
        }
        continue;
      }
      const n = Math.min(this.length - this.bodySeen, chunk.length - i);
      this.bodySeen += n;
      i += n;
      if (this.bodySeen === this.length) {
        this.prefixSeen = 0;
        this.bodySeen = 0;
        completed++;
      }
    }
    return completed;
  }
}
