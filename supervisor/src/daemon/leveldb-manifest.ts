import { BinaryReader } from "@bufbuild/protobuf/wire";
import { VisorError } from "../errors/visor-error.js";

/**
 * LevelDB's log format, shared by its MANIFEST and its write-ahead logs (goleveldb writes the same): 32 KiB
 * blocks of records, each a 7-byte header (masked CRC-32C 4 bytes, length 2 bytes little-endian, type 1 byte)
 * and its data. A record too long for the rest of a block is cut into FIRST, MIDDLE... LAST fragments; fewer
 * than 7 bytes left in a block are zero padding.
 */
const BLOCK = 32 * 1024;
const HEADER = 7;
const ZERO = 0;
const FULL = 1;
const FIRST = 2;
const MIDDLE = 3;
const LAST = 4;

/** VersionEdit tags (LevelDB's version_edit.cc, goleveldb's session_record.go); 8 is no longer written. */
const COMPARATOR = 1;
const LOG_NUMBER = 2;
const NEXT_FILE_NUMBER = 3;
const LAST_SEQUENCE = 4;
const COMPACT_POINTER = 5;
const DELETED_FILE = 6;
const NEW_FILE = 7;
const PREV_LOG_NUMBER = 9;

/** What a MANIFEST says the database is made of, once all its edits are applied. */
export interface ManifestState {
  /** Numbers of the live tables (`<number>.ldb`, or `.sst` from older writers). */
  tables: number[];
  /** Logs numbered from here on (and `prevLogNumber`, when not 0) hold writes no table has yet. */
  logNumber: number;
  prevLogNumber: number;
  /** Every file the database made is numbered below this; whoever opens it numbers new files from here. */
  nextFile: number;
}

const corrupt = (name: string, why: string) =>
  new VisorError("HOME_HEIGHT", `${name} is not a LevelDB manifest visor reads: ${why}`);

/**
 * The logical records of a log-format file, in order. Checksums are not checked: LevelDB checks them when it
 * opens the same bytes, and refuses a manifest with a bad one. A record cut short at the end of the file (its
 * writer was still appending it) ends the file, as LevelDB's reader treats it.
 */
function* logRecords(buf: Uint8Array, name: string): Generator<Uint8Array> {
  let at = 0;
  let fragments: Uint8Array[] | null = null;
  while (at + HEADER <= buf.length) {
    const left = BLOCK - (at % BLOCK);
    if (left < HEADER) {
      at += left;
      continue;
    }
    const length = buf[at + 4] | (buf[at + 5] << 8);
    const type = buf[at + 6];
    const start = at + HEADER;
    const end = start + length;
    if (end > buf.length) return;
    if (length > left - HEADER) throw corrupt(name, `a record at byte ${at} runs past its block`);
    at = end;
    const data = buf.subarray(start, end);
    if (type === ZERO && length === 0) continue; // space a writer preallocated
    if (type === FULL && fragments === null) yield data;
    else if (type === FIRST && fragments === null) fragments = [data];
    else if (type === MIDDLE && fragments !== null) fragments.push(data);
    else if (type === LAST && fragments !== null) {
      fragments.push(data);
      yield Buffer.concat(fragments);
      fragments = null;
    } else throw corrupt(name, `unexpected record type ${type} at byte ${at - length - HEADER}`);
  }
}

/** A 64-bit varint that must fit a JavaScript number (file numbers do by far). */
function fileNumber(r: BinaryReader): number {
  const n = BigInt(r.uint64());
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`file number ${n} is too large`);
  return Number(n);
}

/**
 * Applies the edits of a MANIFEST as LevelDB's recovery does (per edit, deletions before additions; a table is
 * live when its last mention in a level added it) and answers the resulting state. Anything it does not know is
 * refused rather than guessed at.
 */
export function readManifest(buf: Uint8Array, name: string): ManifestState {
  const live = new Map<string, number>();
  let logNumber: number | undefined;
  let prevLogNumber = 0;
  let nextFile: number | undefined;
  for (const record of logRecords(buf, name)) {
    const r = new BinaryReader(record);
    const deleted: string[] = [];
    const added: [string, number][] = [];
    try {
      while (r.pos < r.len) {
        const tag = r.uint32();
        if (tag === COMPARATOR) r.bytes();
        else if (tag === LOG_NUMBER) logNumber = fileNumber(r);
        else if (tag === NEXT_FILE_NUMBER) nextFile = fileNumber(r);
        else if (tag === LAST_SEQUENCE) r.uint64();
        else if (tag === COMPACT_POINTER) {
          r.uint32();
          r.bytes();
        } else if (tag === DELETED_FILE) deleted.push(`${r.uint32()}:${fileNumber(r)}`);
        else if (tag === NEW_FILE) {
          const level = r.uint32();
          const number = fileNumber(r);
          r.uint64(); // size
          r.bytes(); // smallest key
          r.bytes(); // largest key
          added.push([`${level}:${number}`, number]);
        } else if (tag === PREV_LOG_NUMBER) prevLogNumber = fileNumber(r);
        else throw new Error(`unknown tag ${tag}`);
      }
    } catch (e) {
      throw corrupt(name, `an edit does not decode: ${(e as Error).message}`);
    }
    for (const key of deleted) live.delete(key);
    for (const [key, number] of added) live.set(key, number);
  }
  if (nextFile === undefined) throw corrupt(name, "no next file number");
  if (logNumber === undefined) throw corrupt(name, "no log number");
  const tables = [...new Set(live.values())].sort((a, b) => a - b);
  const last = tables.at(-1);
  if (last !== undefined && last >= nextFile)
    throw corrupt(name, `table ${last} is not below the next file number ${nextFile}`);
  return { tables, logNumber, prevLogNumber, nextFile };
}
