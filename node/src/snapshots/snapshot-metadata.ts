import { SnapshotError } from "./snapshot-error.js";

/**
 * What `data/snapshots/<height>/<format>/metadata.json` says of a snapshot: Cosmos's Snapshot fields (height,
 * format, chunks, hash, the chunk hashes) plus the chain and app hash, so an operator sees what it restores to.
 */
export interface SnapshotMetadata {
  height: number;
  format: number;
  chunks: number;
  /** SHA-256 of the whole stream (all chunks in order), hex. */
  hash: string;
  /** SHA-256 of each chunk file, hex, in chunk order. */
  chunk_hashes: string[];
  chain_id: string;
  /** The app hash after the snapshot's height, upper-case hex as CometBFT prints it. */
  app_hash: string;
}

const HEX_SHA256 = /^[0-9a-f]{64}$/;

const wholeAtLeast = (v: unknown, min: number): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= min;

/** Parses and checks a metadata file's text; `where` names it in the one-line error. */
export function parseSnapshotMetadata(text: string, where: string): SnapshotMetadata {
  let m: Partial<SnapshotMetadata>;
  try {
    m = JSON.parse(text);
  } catch {
    throw new SnapshotError(`snapshot metadata ${where} is not JSON`);
  }
  const bad = (field: string) =>
    new SnapshotError(`snapshot metadata ${where}: ${field} is missing or invalid`);
  if (typeof m !== "object" || m === null) throw bad("the document");
  if (!wholeAtLeast(m.height, 1)) throw bad("height");
  if (!wholeAtLeast(m.format, 1)) throw bad("format");
  if (!wholeAtLeast(m.chunks, 1)) throw bad("chunks");
  if (typeof m.hash !== "string" || !HEX_SHA256.test(m.hash)) throw bad("hash");
  if (
    !Array.isArray(m.chunk_hashes) ||
    m.chunk_hashes.length !== m.chunks ||
    !m.chunk_hashes.every((h) => typeof h === "string" && HEX_SHA256.test(h))
  )
    throw bad("chunk_hashes");
  if (typeof m.chain_id !== "string") throw bad("chain_id");
  if (typeof m.app_hash !== "string" || !/^[0-9A-F]{64}$/.test(m.app_hash)) throw bad("app_hash");
  return {
    height: m.height,
    format: m.format,
    chunks: m.chunks,
    hash: m.hash,
    chunk_hashes: m.chunk_hashes,
    chain_id: m.chain_id,
    app_hash: m.app_hash,
  };
}

/** `height: H format: F chunks: N`, as `snapshots list` prints each snapshot (Cosmos's wording). */
export function snapshotLine(m: SnapshotMetadata): string {
  return `height: ${m.height} format: ${m.format} chunks: ${m.chunks}`;
}
