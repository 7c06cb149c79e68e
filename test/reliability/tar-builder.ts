import { gzipSync } from "node:zlib";
import { Header, Pax } from "tar";

/** One tar entry as written by hand, so a test can build archives no honest tool would make. */
export interface TarEntry {
  path: string;
  type?: "File" | "Directory" | "SymbolicLink" | "Link" | "CharacterDevice" | "BlockDevice" | "FIFO";
  data?: string | Buffer;
  linkpath?: string;
  mode?: number;
  /** The size the header claims, when it should differ from the data (a giant with no body). */
  claimedSize?: number;
  /** The owner the header names (root by default). */
  uid?: number;
  gid?: number;
  /** PAX extended attributes written before the entry (a `path` here overrides the header's). */
  pax?: { path?: string; linkpath?: string };
}

/** A ustar archive of the entries, gzipped when asked, ending with the two zero blocks. */
export function tarOf(entries: readonly TarEntry[], opts: { gzip?: boolean } = {}): Buffer {
  const blocks: Buffer[] = [];
  for (const e of entries) {
    if (e.pax) blocks.push(new Pax({ ...e.pax, mtime: new Date(0) }).encode());
    const data = typeof e.data === "string" ? Buffer.from(e.data) : (e.data ?? Buffer.alloc(0));
    const header = new Header({
      path: e.path,
      type: e.type ?? "File",
      size: e.claimedSize ?? data.length,
      mode: e.mode ?? (e.type === "Directory" ? 0o755 : 0o644),
      linkpath: e.linkpath,
      mtime: new Date(0),
      uid: e.uid ?? 0,
      gid: e.gid ?? 0,
      devmaj: 1,
      devmin: 3,
    });
    const block = Buffer.alloc(512);
    header.encode(block, 0);
    blocks.push(block);
    if (data.length) blocks.push(data, Buffer.alloc((512 - (data.length % 512)) % 512));
  }
  blocks.push(Buffer.alloc(1024));
  const tar = Buffer.concat(blocks);
  return opts.gzip ? gzipSync(tar) : tar;
}
