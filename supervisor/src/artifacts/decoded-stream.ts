import { createReadStream } from "node:fs";
import { pipeline, Readable } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";
import { Decompress as ZstdDecompress } from "fzstd";
import bitIterator from "unbzip2-stream/lib/bit_iterator.js";
import bzip2 from "unbzip2-stream/lib/bzip2.js";
import xz from "xz-decompress";
import type { Codec } from "./artifact-format.js";

/**
 * fzstd decodes all it is given at once, and a run-length block turns 4 bytes into 128 KiB: fed this many
 * bytes at a time, one step yields at most 8 MiB, so a reader that stops reading stops the decoder.
 */
const ZSTD_SLICE = 256;

/** A bzip2 block may take this many bytes of input beyond its nominal size (bzip2's own worst case). */
const BZIP2_BLOCK_SLACK = 25_000;

/** The bzip2 decoder writes byte by byte; its output is gathered into chunks this long. */
const BZIP2_OUT_CHUNK = 64 * 1024;

async function* zstdDecoded(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const out: Buffer[] = [];
  const decoder = new ZstdDecompress((data) => {
    if (data.length) out.push(Buffer.from(data.buffer, data.byteOffset, data.length));
  });
  for await (const chunk of source)
    for (let at = 0; at < chunk.length; at += ZSTD_SLICE) {
      decoder.push(chunk.subarray(at, at + ZSTD_SLICE));
      yield* out.splice(0);
    }
  // A frame cut short fails here.
  decoder.push(new Uint8Array(0), true);
  yield* out.splice(0);
}

/**
 * unbzip2-stream's own stream decodes every buffered block in one synchronous loop (a 1 KB bomb is gigabytes
 * before a reader sees any): its block decoder is driven here one block (at most ~46 MB) per step instead.
 */
async function* bzip2Decoded(source: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const queue: Buffer[] = [];
  let buffered = 0;
  let blockSize = 0;
  let streamCrc: number | null = null;
  let bits: ReturnType<typeof bitIterator> | null = null;

  function* block(): Generator<Buffer> {
    if (!bits) return;
    if (!blockSize) {
      blockSize = bzip2.header(bits);
      streamCrc = 0;
      return;
    }
    const size = 100_000 * blockSize;
    const chunks: Buffer[] = [];
    let chunk = Buffer.allocUnsafe(BZIP2_OUT_CHUNK);
    let used = 0;
    streamCrc = bzip2.decompress(
      bits,
      (b: number) => {
        if (used === chunk.length) {
          chunks.push(chunk);
          chunk = Buffer.allocUnsafe(BZIP2_OUT_CHUNK);
          used = 0;
        }
        chunk[used++] = b;
      },
      new Int32Array(size),
      size,
      streamCrc,
    );
    if (streamCrc === null) blockSize = 0; // the end of one stream; another may follow
    if (used) chunks.push(chunk.subarray(0, used));
    yield* chunks;
  }

  for await (const chunk of source) {
    queue.push(chunk);
    buffered += chunk.length;
    bits ??= bitIterator(() => queue.shift());
    while (buffered - bits.bytesRead + 1 >= BZIP2_BLOCK_SLACK + 100_000 * blockSize) yield* block();
  }
  while (bits && buffered > bits.bytesRead) yield* block();
  if (streamCrc !== null) throw new Error("input stream ended prematurely");
}

/** Drops the error a stream has already reported through the one returned. */
const ignore = () => {};

/**
 * The bytes of `file` decompressed with `codec`, streamed: nothing is held whole in memory, a damaged or
 * truncated stream fails as an error of the returned stream, and every decoder runs only as far as its reader
 * reads (plus one bounded step), so a bomb is stopped by a reader that stops. The decoders are maintained
 * libraries'.
 */
export function decodedStream(file: string, codec: Codec): Readable {
  const source = createReadStream(file);
  switch (codec) {
    case "gzip":
      return pipeline(source, createGunzip(), ignore);
    case "zstd":
      return Readable.from(zstdDecoded(source), { objectMode: false });
    case "xz":
      return Readable.fromWeb(
        new xz.XzReadableStream(
          Readable.toWeb(source) as unknown as globalThis.ReadableStream<Uint8Array>,
        ) as unknown as ReadableStream,
      );
    case "bzip2":
      return Readable.from(bzip2Decoded(source), { objectMode: false });
  }
}
