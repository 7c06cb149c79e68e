/**
 * Our own byte streams of the app state at one height. They are not Cosmos's IAVL snapshot format (our state is
 * not an IAVL tree), so a Cosmos node cannot restore them, nor we one of theirs. Two formats:
 *
 *   1  the embedded engine's: the state and the last block, which its block producer needs to go on from the
 *      snapshot's height (its meta, header and block id, and results; CometBFT's `bootstrap-state` keeps the same)
 *   2  CometBFT's (state sync over ABCI): the state only, since CometBFT brings the blocks
 *
 *   stream    := MAGIC(format) bootstrap item* END
 *   bootstrap := 0x01 field(header JSON) [field(Block) field(BlockMeta) field(block results)]   (the [] in format 1)
 *   item      := 0x02 field(store name) field(key) field(value)      sorted by (store, key), as the store keeps them
 *   END       := 0xff
 *   field     := u32 big-endian length | bytes
 */
export const BLOCK_SNAPSHOT_FORMAT = 1;
export const STATE_SNAPSHOT_FORMAT = 2;

const magicOf = (format: number) => new TextEncoder().encode(`chaind-snapshot/${format}\n`);
/** The largest field: a block at CometBFT's largest `max_bytes` (100 MiB) with room to spare. */
const MAX_FIELD_BYTES = 128 * 1024 * 1024;
const BOOTSTRAP = 0x01;
const ITEM = 0x02;
const END = 0xff;

/** The last block's records a format-1 snapshot carries. */
export interface LastBlockRecords {
  block: Uint8Array;
  blockMeta: Uint8Array;
  blockResults: Uint8Array;
}

/** What restoring needs besides the state: the chain, height and app hash, and (format 1) the last block. */
export interface SnapshotBootstrap {
  header: { chain_id: string; height: number; app_hash: string };
  lastBlock?: LastBlockRecords;
}

/** The format a bootstrap is written in: with the last block, format 1; without, format 2. */
export const formatOf = (b: SnapshotBootstrap): number =>
  b.lastBlock ? BLOCK_SNAPSHOT_FORMAT : STATE_SNAPSHOT_FORMAT;

export interface SnapshotItem {
  store: string;
  key: Uint8Array;
  value: Uint8Array;
}

export type SnapshotRecord =
  | { kind: "bootstrap"; bootstrap: SnapshotBootstrap }
  | ({ kind: "item" } & SnapshotItem);

/** The stream is damaged or not of its format: chunk hashes matched, so the snapshot was made wrong. */
export class SnapshotStreamError extends Error {
  constructor(detail: string) {
    super(`malformed snapshot stream: ${detail}`);
    this.name = "SnapshotStreamError";
  }
}

function record(kind: number, fields: Uint8Array[]): Uint8Array {
  let size = 1;
  for (const f of fields) size += 4 + f.length;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out[0] = kind;
  let at = 1;
  for (const f of fields) {
    view.setUint32(at, f.length);
    out.set(f, at + 4);
    at += 4 + f.length;
  }
  return out;
}

/** The stream's bytes, piece by piece: magic and bootstrap, each item, then the end mark. */
export async function* encodeSnapshotStream(
  bootstrap: SnapshotBootstrap,
  items: AsyncIterable<SnapshotItem>,
): AsyncIterable<Uint8Array> {
  const enc = new TextEncoder();
  const { lastBlock } = bootstrap;
  yield magicOf(formatOf(bootstrap));
  yield record(BOOTSTRAP, [
    enc.encode(JSON.stringify(bootstrap.header)),
    ...(lastBlock ? [lastBlock.block, lastBlock.blockMeta, lastBlock.blockResults] : []),
  ]);
  for await (const item of items) yield record(ITEM, [enc.encode(item.store), item.key, item.value]);
  yield Uint8Array.of(END);
}

/** Reads fields out of bytes that arrive in pieces (chunks), keeping what a piece cut short for the next. */
class PieceReader {
  private buf = new Uint8Array();
  private at = 0;

  push(piece: Uint8Array): void {
    const rest = this.buf.subarray(this.at);
    const next = new Uint8Array(rest.length + piece.length);
    next.set(rest);
    next.set(piece, rest.length);
    this.buf = next;
    this.at = 0;
  }

  get available(): number {
    return this.buf.length - this.at;
  }

  /** `n` bytes, or undefined (nothing consumed) when fewer are here yet. */
  take(n: number): Uint8Array | undefined {
    if (this.available < n) return undefined;
    const out = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** A record of `count` fields after its kind byte, or undefined (nothing consumed) when it is not all here. */
  fields(count: number): Uint8Array[] | undefined {
    const start = this.at;
    const view = new DataView(this.buf.buffer, this.buf.byteOffset);
    const out: Uint8Array[] = [];
    let at = start + 1;
    for (let i = 0; i < count; i++) {
      if (this.buf.length - at < 4) return undefined;
      const len = view.getUint32(at);
      // A stream from a peer is read piece by piece: a field claiming more than any record holds is refused
      // before its bytes pile up in memory.
      if (len > MAX_FIELD_BYTES)
        throw new SnapshotStreamError(`a field of ${len} bytes (at most ${MAX_FIELD_BYTES} are taken)`);
      if (this.buf.length - at - 4 < len) return undefined;
      out.push(this.buf.slice(at + 4, at + 4 + len));
      at += 4 + len;
    }
    this.at = at;
    return out;
  }

  peek(): number | undefined {
    return this.available > 0 ? this.buf[this.at] : undefined;
  }
}

/**
 * The records of a stream of `format` given as pieces in order; refuses a stream of another format, or one that
 * is cut short or damaged.
 */
export async function* decodeSnapshotStream(
  format: number,
  pieces: AsyncIterable<Uint8Array>,
): AsyncIterable<SnapshotRecord> {
  const dec = new TextDecoder("utf-8", { fatal: true });
  const MAGIC = magicOf(format);
  const bootstrapFields = format === BLOCK_SNAPSHOT_FORMAT ? 4 : 1;
  const reader = new PieceReader();
  let magicSeen = false;
  let bootstrapSeen = false;
  let ended = false;
  for await (const piece of pieces) {
    if (ended && piece.length > 0) throw new SnapshotStreamError("bytes after the end mark");
    reader.push(piece);
    if (!magicSeen) {
      const magic = reader.take(MAGIC.length);
      if (!magic) continue;
      if (Buffer.compare(magic, MAGIC) !== 0)
        throw new SnapshotStreamError(`not a format ${format} snapshot`);
      magicSeen = true;
    }
    for (let kind = reader.peek(); kind !== undefined && !ended; kind = reader.peek()) {
      if (kind === END) {
        reader.take(1);
        ended = true;
        if (reader.available > 0) throw new SnapshotStreamError("bytes after the end mark");
      } else if (kind === BOOTSTRAP) {
        if (bootstrapSeen) throw new SnapshotStreamError("a second bootstrap record");
        const f = reader.fields(bootstrapFields);
        if (!f) break;
        bootstrapSeen = true;
        let header: SnapshotBootstrap["header"];
        try {
          header = JSON.parse(dec.decode(f[0]));
        } catch {
          throw new SnapshotStreamError("the bootstrap header is not JSON");
        }
        if (
          typeof header !== "object" ||
          header === null ||
          typeof header.chain_id !== "string" ||
          !Number.isSafeInteger(header.height) ||
          typeof header.app_hash !== "string"
        )
          throw new SnapshotStreamError("the bootstrap header lacks its chain_id, height or app_hash");
        const lastBlock = f.length === 4 ? { block: f[1], blockMeta: f[2], blockResults: f[3] } : undefined;
        yield { kind: "bootstrap", bootstrap: { header, lastBlock } };
      } else if (kind === ITEM) {
        if (!bootstrapSeen) throw new SnapshotStreamError("a state item before the bootstrap record");
        const f = reader.fields(3);
        if (!f) break;
        yield { kind: "item", store: dec.decode(f[0]), key: f[1], value: f[2] };
      } else {
        throw new SnapshotStreamError(`unknown record kind 0x${kind.toString(16).padStart(2, "0")}`);
      }
    }
  }
  if (!ended) throw new SnapshotStreamError("the stream ends before its end mark");
}
