import { createReadStream } from "node:fs";
import { pipeline, Readable, Transform } from "node:stream";
import type { ReadableStream } from "node:stream/web";
import { createGunzip } from "node:zlib";
import { Decompress as ZstdDecompress } from "fzstd";
import unbzip2 from "unbzip2-stream";
import xz from "xz-decompress";
import type { Codec } from "./artifact-format.js";

/** fzstd's push decoder as a stream; a frame cut short fails at the end. */
function zstdTransform(): Transform {
  let decoder: ZstdDecompress;
  const t = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      try {
        decoder.push(chunk);
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
    flush(cb) {
      try {
        decoder.push(new Uint8Array(0), true);
        cb();
      } catch (e) {
        cb(e as Error);
      }
    },
  });
  decoder = new ZstdDecompress((data) => {
    if (data.length) t.push(Buffer.from(data.buffer, data.byteOffset, data.length));
  });
  return t;
}

/** Drops the error a stream has already reported through the one returned. */
const ignore = () => {};

/**
 * The bytes of `file` decompressed with `codec`, streamed: nothing is held whole in memory, and a damaged or
 * truncated stream fails as an error of the returned stream. Every decoder here is a maintained library's.
 */
export function decodedStream(file: string, codec: Codec): Readable {
  const source = createReadStream(file);
  switch (codec) {
    case "gzip":
      return pipeline(source, createGunzip(), ignore);
    case "zstd":
      return pipeline(source, zstdTransform(), ignore);
    case "xz":
      return Readable.fromWeb(
        new xz.XzReadableStream(
          Readable.toWeb(source) as unknown as globalThis.ReadableStream<Uint8Array>,
        ) as unknown as ReadableStream,
      );
    case "bzip2": {
      // unbzip2-stream is a classic (pre-streams3) through stream: wrapped, its errors reach the reader.
      const decoder = unbzip2();
      source.on("error", (e) => decoder.emit("error", e));
      return new Readable().wrap(source.pipe(decoder));
    }
  }
}
