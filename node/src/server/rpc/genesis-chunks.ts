import { statSync } from "node:fs";
import { open } from "node:fs/promises";
import { ConcurrencyGate } from "../../app/concurrency-gate.js";
import { JsonRpcError } from "./json-rpc-error.js";

/** CometBFT's genesis chunk size; `genesis` refuses a document that needs more than one. */
export const GENESIS_CHUNK_BYTES = 16 * 1024 * 1024;

/** CometBFT's `genesis_chunked` answer: integers as strings, as its JSON encodes Go ints. */
export interface GenesisChunk {
  chunk: string;
  total: string;
  /** Base64 of the chunk's bytes of genesis.json. */
  data: string;
}

/**
 * genesis.json as CometBFT's `genesis_chunked` serves it: the file's bytes cut into 16 MiB chunks, each base64.
 * Nothing is parsed, and a call reads only its own chunk, one call at a time (a few more wait, the rest are
 * refused), so a huge genesis costs one chunk of memory at a time, never the whole file. The last chunk served
 * is kept, so the clients of a public node that ask for the same chunk do not each read and encode it again.
 */
export class GenesisChunks {
  private last: { file: string; index: number; data: string } | null = null;
  private readonly reads = new ConcurrencyGate({ running: 1, waiting: 32 }, () =>
    JsonRpcError.internal("too many genesis_chunked requests in flight; try again shortly"),
  );

  constructor(
    private readonly path: string,
    private readonly chunkBytes = GENESIS_CHUNK_BYTES,
  ) {}

  /** How many chunks the file makes now (one at least). Synchronous: a stat, never a read. */
  total(): number {
    return this.totalOf(statSync(this.path).size);
  }

  chunk(index: number): Promise<GenesisChunk> {
    return this.reads.run(async () => {
      const file = await open(this.path, "r");
      try {
        const { size, mtimeMs, ino } = await file.stat();
        const total = this.totalOf(size);
        if (index >= total)
          throw JsonRpcError.internal(
            `there are ${total} chunks, ${index} is invalid; chunks are numbered 0 to ${total - 1}`,
          );
        const answer = (data: string) => ({ chunk: String(index), total: String(total), data });
        // The same file (an edit changes its size or time) and the same chunk: no need to read it again.
        const version = `${ino}:${size}:${mtimeMs}`;
        if (this.last?.file === version && this.last.index === index) return answer(this.last.data);
        const start = index * this.chunkBytes;
        const bytes = Buffer.alloc(Math.min(this.chunkBytes, size - start));
        let filled = 0;
        while (filled < bytes.length) {
          const { bytesRead } = await file.read(bytes, filled, bytes.length - filled, start + filled);
          if (bytesRead === 0) throw JsonRpcError.internal(`${this.path} shrank while it was read`);
          filled += bytesRead;
        }
        this.last = { file: version, index, data: bytes.toString("base64") };
        return answer(this.last.data);
      } finally {
        await file.close();
      }
    });
  }

  private totalOf(size: number): number {
    return Math.max(1, Math.ceil(size / this.chunkBytes));
  }
}
