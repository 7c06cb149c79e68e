import { closeSync, openSync, readSync } from "node:fs";

/** A compression a release may use around a tar or a bare binary, as go-getter's decompressors name them. */
export type Codec = "gzip" | "bzip2" | "xz" | "zstd";

/** What a downloaded file is, told by its first bytes (a release's name may say anything). */
export type ArtifactFormat =
  | { kind: "zip" }
  | { kind: "tar" }
  | { kind: "compressed"; codec: Codec }
  | { kind: "plain" };

/** Each codec's magic number at offset 0 (gzip RFC 1952, bzip2 "BZh", xz, zstd frame RFC 8878). */
const MAGIC: [Codec, number[]][] = [
  ["gzip", [0x1f, 0x8b]],
  ["bzip2", [0x42, 0x5a, 0x68]],
  ["xz", [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]],
  ["zstd", [0x28, 0xb5, 0x2f, 0xfd]],
];

/** A local file header, or the end record of an empty zip. */
const ZIP_MAGIC = [
  [0x50, 0x4b, 0x03, 0x04],
  [0x50, 0x4b, 0x05, 0x06],
];

const startsWith = (head: Buffer, magic: number[]) => magic.every((b, i) => head[i] === b);

export function artifactFormat(file: string): ArtifactFormat {
  const head = Buffer.alloc(262);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (ZIP_MAGIC.some((m) => startsWith(head, m))) return { kind: "zip" };
  for (const [codec, magic] of MAGIC) if (startsWith(head, magic)) return { kind: "compressed", codec };
  // POSIX ustar and GNU tar both put "ustar" at offset 257.
  if (head.subarray(257, 262).toString("latin1") === "ustar") return { kind: "tar" };
  return { kind: "plain" };
}
