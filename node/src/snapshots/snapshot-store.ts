import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { SnapshotError } from "./snapshot-error.js";
import { parseSnapshotMetadata, type SnapshotMetadata } from "./snapshot-metadata.js";

/** Cosmos's chunk size: 10 MB. */
export const DEFAULT_CHUNK_BYTES = 10_000_000;

const METADATA_FILE = "metadata.json";

/** `<height>/<format>`, as operators name a snapshot. */
export const snapshotName = (height: number, format: number) => `${height}/${format}`;

/**
 * The snapshots of a home, in `data/snapshots/` as Cosmos lays them out: `<height>/<format>/<chunk>` files,
 * plus a `metadata.json` beside the chunks. The metadata is written last, so a snapshot cut short by a crash
 * has none and is neither listed nor restored; the next snapshot of that height clears it away.
 */
export class SnapshotStore {
  constructor(readonly dir: string) {}

  private folder(height: number, format: number): string {
    return join(this.dir, String(height), String(format));
  }

  chunkPath(height: number, format: number, index: number): string {
    return join(this.folder(height, format), String(index));
  }

  /** Every complete snapshot, newest first (as Cosmos lists them). */
  list(): SnapshotMetadata[] {
    if (!existsSync(this.dir)) return [];
    const out: SnapshotMetadata[] = [];
    for (const h of readdirSync(this.dir)) {
      if (!/^[1-9]\d*$/.test(h)) continue;
      for (const f of readdirSync(join(this.dir, h))) {
        if (!/^[1-9]\d*$/.test(f)) continue;
        const m = this.get(Number(h), Number(f));
        if (m) out.push(m);
      }
    }
    return out.sort((a, b) => b.height - a.height || b.format - a.format);
  }

  /** The snapshot's metadata, or undefined when there is no complete snapshot of that height and format. */
  get(height: number, format: number): SnapshotMetadata | undefined {
    const file = join(this.folder(height, format), METADATA_FILE);
    if (!existsSync(file)) return undefined;
    const m = parseSnapshotMetadata(readFileSync(file, "utf8"), file);
    if (m.height !== height || m.format !== format)
      throw new SnapshotError(
        `snapshot metadata ${file} describes snapshot ${snapshotName(m.height, m.format)}`,
      );
    return m;
  }

  /** The snapshot's metadata; a one-line error when it does not exist. */
  require(height: number, format: number): SnapshotMetadata {
    const m = this.get(height, format);
    if (!m) throw new SnapshotError(`snapshot ${snapshotName(height, format)} not found in ${this.dir}`);
    return m;
  }

  /**
   * Writes a stream as chunk files of `chunkBytes` each (the last may be shorter), hashing each chunk and the
   * whole, then the metadata. Refuses to replace a complete snapshot of the same height and format.
   */
  async save(
    id: { height: number; format: number; chain_id: string; app_hash: string },
    pieces: AsyncIterable<Uint8Array>,
    chunkBytes = DEFAULT_CHUNK_BYTES,
  ): Promise<SnapshotMetadata> {
    if (this.get(id.height, id.format))
      throw new SnapshotError(`snapshot ${snapshotName(id.height, id.format)} already exists`);
    const folder = this.folder(id.height, id.format);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(folder, { recursive: true });
    const whole = createHash("sha256");
    const chunkHashes: string[] = [];
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = async (bytes: Uint8Array) => {
      chunkHashes.push(createHash("sha256").update(bytes).digest("hex"));
      await writeFile(join(folder, String(chunkHashes.length - 1)), bytes);
    };
    try {
      for await (const piece of pieces) {
        whole.update(piece);
        let rest = piece;
        while (pendingBytes + rest.length >= chunkBytes) {
          const take = chunkBytes - pendingBytes;
          pending.push(rest.subarray(0, take));
          rest = rest.subarray(take);
          await flush(Buffer.concat(pending));
          pending = [];
          pendingBytes = 0;
        }
        if (rest.length > 0) {
          pending.push(rest.slice());
          pendingBytes += rest.length;
        }
      }
      if (pendingBytes > 0 || chunkHashes.length === 0) await flush(Buffer.concat(pending));
      const meta: SnapshotMetadata = {
        height: id.height,
        format: id.format,
        chunks: chunkHashes.length,
        hash: whole.digest("hex"),
        chunk_hashes: chunkHashes,
        chain_id: id.chain_id,
        app_hash: id.app_hash,
      };
      this.writeMetadata(meta);
      return meta;
    } catch (e) {
      rmSync(folder, { recursive: true, force: true });
      throw e;
    }
  }

  private writeMetadata(meta: SnapshotMetadata): void {
    writeFileAtomic(
      join(this.folder(meta.height, meta.format), METADATA_FILE),
      `${JSON.stringify(meta, null, 2)}\n`,
      {
        durable: true,
      },
    );
  }

  /** Writes one chunk of a snapshot that arrives chunk by chunk (state sync); `seal` completes it. */
  async putChunk(height: number, format: number, index: number, bytes: Uint8Array): Promise<void> {
    mkdirSync(this.folder(height, format), { recursive: true });
    await writeFile(this.chunkPath(height, format, index), bytes);
  }

  /** Completes a snapshot whose chunks were put one by one: every chunk and the whole checked, then its metadata. */
  async seal(meta: SnapshotMetadata): Promise<void> {
    if (this.get(meta.height, meta.format))
      throw new SnapshotError(`snapshot ${snapshotName(meta.height, meta.format)} already exists`);
    await this.verify(meta);
    this.writeMetadata(meta);
  }

  /** Moves a folder holding a snapshot's chunks and its metadata.json (an unpacked archive) into place. */
  adopt(from: string, meta: SnapshotMetadata): void {
    if (this.get(meta.height, meta.format))
      throw new SnapshotError(`snapshot ${snapshotName(meta.height, meta.format)} already exists`);
    const folder = this.folder(meta.height, meta.format);
    rmSync(folder, { recursive: true, force: true });
    mkdirSync(dirname(folder), { recursive: true });
    renameSync(from, folder);
  }

  /**
   * The chunks in order, each checked against its recorded SHA-256, and the whole against the snapshot hash. A
   * missing or corrupted chunk is refused by name before any of its bytes are handed on.
   */
  async *verifiedChunks(meta: SnapshotMetadata): AsyncIterable<Uint8Array> {
    const name = snapshotName(meta.height, meta.format);
    const whole = createHash("sha256");
    for (let i = 0; i < meta.chunks; i++) {
      const file = this.chunkPath(meta.height, meta.format, i);
      if (!existsSync(file)) throw new SnapshotError(`chunk ${i} of snapshot ${name} is missing (${file})`);
      const bytes = new Uint8Array(readFileSync(file));
      const got = createHash("sha256").update(bytes).digest("hex");
      if (got !== meta.chunk_hashes[i])
        throw new SnapshotError(
          `chunk ${i} of snapshot ${name} is corrupted: sha256 ${got}, expected ${meta.chunk_hashes[i]} (${file})`,
        );
      whole.update(bytes);
      yield bytes;
    }
    const got = whole.digest("hex");
    if (got !== meta.hash)
      throw new SnapshotError(
        `snapshot ${name} is corrupted: its chunks hash to ${got}, expected ${meta.hash}`,
      );
  }

  /** Reads every chunk once to check it, without using it. */
  async verify(meta: SnapshotMetadata): Promise<void> {
    for await (const _ of this.verifiedChunks(meta));
  }

  delete(height: number, format: number): void {
    this.require(height, format);
    this.remove(height, format);
  }

  private remove(height: number, format: number): void {
    rmSync(this.folder(height, format), { recursive: true, force: true });
    const heightDir = join(this.dir, String(height));
    if (existsSync(heightDir) && readdirSync(heightDir).length === 0) rmSync(heightDir, { recursive: true });
  }

  /** Keeps the snapshots of the newest `keepRecent` heights (0 keeps all, as in Cosmos); returns those removed. */
  prune(keepRecent: number): SnapshotMetadata[] {
    if (keepRecent <= 0) return [];
    const all = this.list();
    const kept = [...new Set(all.map((m) => m.height))].slice(0, keepRecent);
    const removed = all.filter((m) => !kept.includes(m.height));
    for (const m of removed) this.remove(m.height, m.format);
    return removed;
  }
}
