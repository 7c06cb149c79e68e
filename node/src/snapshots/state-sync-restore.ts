import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import { StateHashMismatchError, type StateStore } from "../store/state-store.js";
import { SnapshotError } from "./snapshot-error.js";
import type { SnapshotMetadata } from "./snapshot-metadata.js";
import { stateItemsOf } from "./snapshot-restore.js";
import { SnapshotStore, snapshotName } from "./snapshot-store.js";
import { decodeSnapshotStream, STATE_SNAPSHOT_FORMAT } from "./snapshot-stream.js";

/** A snapshot as CometBFT's state sync offers it (ABCI's Snapshot), from peers nobody vouches for. */
export interface OfferedSnapshot {
  height: number;
  format: number;
  chunks: number;
  /** SHA-256 of the whole stream. */
  hash: Uint8Array;
  /** The SHA-256 of each chunk, one after another (what `abciSnapshotOf` writes). */
  metadata: Uint8Array;
}

export type OfferVerdict = "accept" | "abort" | "reject" | "reject_format";

export interface ChunkVerdict {
  result: "accept" | "retry" | "reject_snapshot" | "abort";
  refetchChunks: number[];
  rejectSenders: string[];
}

const SHA256_BYTES = 32;
/** 65,536 chunks of 10 MB: far above any state, and it bounds the metadata a peer can make us keep. */
const MAX_CHUNKS = 65_536;
/** CometBFT's own bound on a chunk message. */
const MAX_CHUNK_BYTES = 16_000_000;

export interface StateSyncDeps {
  state: StateStore;
  /** Where chunks wait until all have come; emptied at each offer and after each restore. */
  stagingDir: string;
  chainId: string;
  logger: Logger;
  /** Tells the App its store now holds the restored state. */
  restored(height: number): Promise<void>;
  /** Empties the store after a failed import, keeping what the node keeps from before its first block. */
  discardState(): Promise<void>;
}

interface Pending {
  snapshot: OfferedSnapshot;
  trustedAppHash: Uint8Array;
  chunkHashes: string[];
  received: Set<number>;
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

const verdict = (result: ChunkVerdict["result"], refetch: number[] = [], reject: string[] = []) => ({
  result,
  refetchChunks: refetch,
  rejectSenders: reject,
});

/** Why an offered snapshot cannot be a format-2 snapshot of ours, or undefined when it can. */
function malformed(s: OfferedSnapshot, trustedAppHash: Uint8Array): string | undefined {
  if (s.height < 1) return "its height is 0";
  if (s.chunks < 1 || s.chunks > MAX_CHUNKS)
    return `it has ${s.chunks} chunks (1 to ${MAX_CHUNKS} are taken)`;
  if (s.hash.length !== SHA256_BYTES) return "its hash is not a SHA-256";
  if (s.metadata.length !== SHA256_BYTES * s.chunks) return "its metadata is not one SHA-256 per chunk";
  if (trustedAppHash.length !== SHA256_BYTES) return "the trusted app hash is not 32 bytes";
  return undefined;
}

/**
 * State sync over ABCI, the app's side: CometBFT offers a snapshot a peer advertised together with the app hash
 * its light client verified for that height, then hands over the chunks in order as peers send them. Each chunk
 * is checked against the hash the snapshot lists for it (a mismatch is refused, its sender dropped and the
 * chunk fetched again, as the SDK does) and kept in a staging folder; once all are in, the state is imported,
 * its app hash recomputed from the entries and compared with the trusted one. A snapshot whose state is not the
 * trusted one is rejected whole and the store emptied again, so CometBFT can try another.
 */
export class StateSyncRestore {
  private pending: Pending | null = null;
  private readonly staging: SnapshotStore;

  constructor(private readonly deps: StateSyncDeps) {
    this.staging = new SnapshotStore(deps.stagingDir);
  }

  offer(s: OfferedSnapshot, trustedAppHash: Uint8Array): OfferVerdict {
    const { logger, state } = this.deps;
    this.pending = null;
    this.clearStaging();
    const name = snapshotName(s.height, s.format);
    if (state.latestHeight > 0) {
      logger.error("cannot restore a snapshot: this node already holds state", {
        snapshot: name,
        height: state.latestHeight,
      });
      return "abort";
    }
    if (s.format !== STATE_SNAPSHOT_FORMAT) {
      logger.info("snapshot format not restored by this node", {
        snapshot: name,
        format: STATE_SNAPSHOT_FORMAT,
      });
      return "reject_format";
    }
    const problem = malformed(s, trustedAppHash);
    if (problem) {
      logger.error("refused snapshot", { snapshot: name, err: problem });
      return "reject";
    }
    const chunkHashes = Array.from({ length: s.chunks }, (_, i) =>
      Buffer.from(s.metadata.subarray(i * SHA256_BYTES, (i + 1) * SHA256_BYTES)).toString("hex"),
    );
    this.pending = { snapshot: s, trustedAppHash, chunkHashes, received: new Set() };
    logger.info("restoring snapshot", {
      height: s.height,
      format: s.format,
      chunks: s.chunks,
      trusted_app_hash: toHexUpper(trustedAppHash),
    });
    return "accept";
  }

  async applyChunk(index: number, chunk: Uint8Array, sender: string): Promise<ChunkVerdict> {
    const { logger } = this.deps;
    const p = this.pending;
    if (!p) {
      logger.error("snapshot chunk with no snapshot being restored", { chunk: index });
      return verdict("abort");
    }
    const { height, format, chunks } = p.snapshot;
    if (index >= chunks) {
      logger.error("refused snapshot", {
        snapshot: snapshotName(height, format),
        err: `chunk ${index} of a snapshot of ${chunks} chunks`,
      });
      return verdict("reject_snapshot");
    }
    const got = chunk.length <= MAX_CHUNK_BYTES ? sha256(chunk) : "(too large)";
    if (got !== p.chunkHashes[index]) {
      logger.error("chunk checksum mismatch; rejecting sender and requesting refetch", {
        height,
        format,
        chunk: index,
        sender,
        sha256: got,
        expected: p.chunkHashes[index],
      });
      return verdict("retry", [index], sender ? [sender] : []);
    }
    await this.staging.putChunk(height, format, index, chunk);
    p.received.add(index);
    if (p.received.size < chunks) return verdict("accept");
    this.pending = null;
    return this.restore(p);
  }

  /** Every chunk is in: the whole checked, the state imported and checked against the trusted app hash. */
  private async restore(p: Pending): Promise<ChunkVerdict> {
    const { logger, state, chainId } = this.deps;
    const { height, format, chunks } = p.snapshot;
    const meta: SnapshotMetadata = {
      height,
      format,
      chunks,
      hash: Buffer.from(p.snapshot.hash).toString("hex"),
      chunk_hashes: p.chunkHashes,
      chain_id: chainId,
      app_hash: toHexUpper(p.trustedAppHash),
    };
    let items: number;
    try {
      await this.staging.seal(meta);
      const records = decodeSnapshotStream(format, this.staging.verifiedChunks(meta))[Symbol.asyncIterator]();
      const first = await records.next();
      if (first.done || first.value.kind !== "bootstrap")
        throw new SnapshotError("the snapshot stream does not start with its bootstrap record");
      const { header } = first.value.bootstrap;
      if (header.chain_id !== chainId)
        throw new SnapshotError(`it is a snapshot of chain ${header.chain_id}, not of ${chainId}`);
      if (header.height !== height)
        throw new SnapshotError(`its stream is of height ${header.height}, its offer of ${height}`);
      if (header.app_hash !== meta.app_hash)
        throw new SnapshotError(
          `it claims app hash ${header.app_hash}, not the ${meta.app_hash} CometBFT's light client verified`,
        );
      items = await state.importState(height, p.trustedAppHash, stateItemsOf(records), []);
    } catch (e) {
      await this.deps.discardState();
      const err =
        e instanceof StateHashMismatchError
          ? `${e.message}, the app hash CometBFT's light client verified`
          : (e as Error).message;
      logger.error("refused snapshot", { snapshot: snapshotName(height, format), err });
      return verdict("reject_snapshot");
    } finally {
      this.clearStaging();
    }
    await this.deps.restored(height);
    logger.info("restored snapshot", { height, format, chunks, items, app_hash: meta.app_hash });
    return verdict("accept");
  }

  private clearStaging(): void {
    rmSync(this.deps.stagingDir, { recursive: true, force: true });
  }
}
