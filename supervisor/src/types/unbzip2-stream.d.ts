/** unbzip2-stream ships no types: its bit reader and block decoder, which visor drives a block at a time. */
declare module "unbzip2-stream/lib/bit_iterator.js" {
  /** Reads `n` bits (or, given null, skips to the next byte) from the buffers `next` hands out in turn. */
  type BitReader = ((n: number | null) => number) & { bytesRead: number };
  export default function bitIterator(next: () => Uint8Array | undefined): BitReader;
}

declare module "unbzip2-stream/lib/bzip2.js" {
  const bzip2: {
    /** Reads a stream header; answers its block size in units of 100 kB. */
    header(bits: (n: number | null) => number): number;
    /** Decodes one block into `out`, byte by byte; answers the running CRC, or null at the end of a stream. */
    decompress(
      bits: (n: number | null) => number,
      out: (byte: number) => void,
      buf: Int32Array,
      bufsize: number,
      streamCrc: number | null,
    ): number | null;
  };
  export default bzip2;
}
