import { existsSync, readFileSync } from "node:fs";
import {
  type Request,
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
} from "@chaind/proto/tendermint/abci/types_pb";
import type { SnapshotMetadata } from "../snapshots/snapshot-metadata.js";
import type { SnapshotStore } from "../snapshots/snapshot-store.js";
import { STATE_SNAPSHOT_FORMAT } from "../snapshots/snapshot-stream.js";
import type { StateSyncRestore } from "../snapshots/state-sync-restore.js";

type Req<C extends Request["value"]["case"]> = Extract<Request["value"], { case: C }>["value"];

/** A snapshot as ABCI lists it: the metadata carries each chunk's SHA-256, so a restoring node can check each. */
function abciSnapshotOf(m: SnapshotMetadata) {
  return {
    height: BigInt(m.height),
    format: m.format,
    chunks: m.chunks,
    hash: new Uint8Array(Buffer.from(m.hash, "hex")),
    metadata: new Uint8Array(Buffer.concat(m.chunk_hashes.map((h) => Buffer.from(h, "hex")))),
  };
}

const OFFER: Record<ReturnType<StateSyncRestore["offer"]>, ResponseOfferSnapshot_Result> = {
  accept: ResponseOfferSnapshot_Result.ACCEPT,
  abort: ResponseOfferSnapshot_Result.ABORT,
  reject: ResponseOfferSnapshot_Result.REJECT,
  reject_format: ResponseOfferSnapshot_Result.REJECT_FORMAT,
};

const APPLY: Record<
  Awaited<ReturnType<StateSyncRestore["applyChunk"]>>["result"],
  ResponseApplySnapshotChunk_Result
> = {
  accept: ResponseApplySnapshotChunk_Result.ACCEPT,
  retry: ResponseApplySnapshotChunk_Result.RETRY,
  reject_snapshot: ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT,
  abort: ResponseApplySnapshotChunk_Result.ABORT,
};

/**
 * CometBFT's snapshot connection: the node's format-2 snapshots served to peers that state-sync (listed, and
 * their chunk files sent as they lie, as the SDK does: the receiver checks them), and this node's own state sync.
 */
export class AbciSnapshots {
  constructor(
    private readonly store: SnapshotStore,
    private readonly restore: StateSyncRestore,
  ) {}

  /** The complete format-2 snapshots; none when the folder cannot be read (a damaged metadata file). */
  list() {
    let all: SnapshotMetadata[] = [];
    try {
      all = this.store.list();
    } catch {}
    return { snapshots: all.filter((m) => m.format === STATE_SNAPSHOT_FORMAT).map(abciSnapshotOf) };
  }

  /** A chunk of a complete snapshot; empty when there is no such chunk (CometBFT then asks another peer). */
  loadChunk(req: Req<"loadSnapshotChunk">) {
    const none = { chunk: new Uint8Array() };
    const height = Number(req.height);
    if (!Number.isSafeInteger(height) || height < 1) return none;
    try {
      const m = this.store.get(height, req.format);
      const file =
        m && req.chunk < m.chunks ? this.store.chunkPath(height, req.format, req.chunk) : undefined;
      return file && existsSync(file) ? { chunk: new Uint8Array(readFileSync(file)) } : none;
    } catch {
      return none;
    }
  }

  offer(req: Req<"offerSnapshot">) {
    const s = req.snapshot;
    if (!s) return { result: ResponseOfferSnapshot_Result.REJECT };
    const verdict = this.restore.offer(
      { height: Number(s.height), format: s.format, chunks: s.chunks, hash: s.hash, metadata: s.metadata },
      req.appHash,
    );
    return { result: OFFER[verdict] };
  }

  async apply(req: Req<"applySnapshotChunk">) {
    const v = await this.restore.applyChunk(req.index, req.chunk, req.sender);
    return { result: APPLY[v.result], refetchChunks: v.refetchChunks, rejectSenders: v.rejectSenders };
  }
}
