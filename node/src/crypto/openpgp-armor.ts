import { strictBase64 } from "@chaind/core/base64";
/**
 * OpenPGP ASCII armor (RFC 4880 §6.2), the text form Cosmos gives exported keys:
 *
 *   -----BEGIN <TYPE>-----
 *   key: value            (headers, then one blank line)
 *
 *   <base64 body, 64 characters a line>
 *   =<base64 of the 3-byte CRC-24 of the body>
 *   -----END <TYPE>-----
 */

export interface Armored {
  blockType: string;
  headers: Record<string, string>;
  data: Uint8Array;
}

const LINE_LENGTH = 64;
const CRC24_INIT = 0xb704ce;
const CRC24_POLY = 0x1864cfb;

function crc24(data: Uint8Array): number {
  let crc = CRC24_INIT;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= CRC24_POLY;
    }
  }
  return crc & 0xffffff;
}

function crc24Base64(data: Uint8Array): string {
  const crc = crc24(data);
  return Buffer.from([crc >> 16, (crc >> 8) & 0xff, crc & 0xff]).toString("base64");
}

/** Headers are written sorted by name, so the same input always gives the same text. */
export function encodeArmor(blockType: string, headers: Record<string, string>, data: Uint8Array): string {
  const lines = [`-----BEGIN ${blockType}-----`];
  for (const key of Object.keys(headers).sort()) lines.push(`${key}: ${headers[key]}`);
  lines.push("");
  const body = Buffer.from(data).toString("base64");
  for (let i = 0; i < body.length; i += LINE_LENGTH) lines.push(body.slice(i, i + LINE_LENGTH));
  if (body.length === 0) lines.push("");
  lines.push(`=${crc24Base64(data)}`, `-----END ${blockType}-----`);
  return lines.join("\n");
}

/** Thrown for text that is not one well-formed armored block; the message names what is wrong. */
export class ArmorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ArmorError";
  }
}

/**
 * The first armored block in `text` (text around it is ignored, as OpenPGP readers do). A checksum line is
 * optional; when present it must match the body.
 */
export function decodeArmor(text: string): Armored {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  const start = lines.findIndex((l) => /^-----BEGIN [^-]+-----$/.test(l));
  if (start < 0) throw new ArmorError("no -----BEGIN ...----- line");
  const blockType = lines[start].slice("-----BEGIN ".length, -"-----".length);
  const headers: Record<string, string> = {};
  let i = start + 1;
  for (; i < lines.length && lines[i] !== ""; i++) {
    const sep = lines[i].indexOf(": ");
    if (sep <= 0) throw new ArmorError(`malformed header line ${JSON.stringify(lines[i])}`);
    headers[lines[i].slice(0, sep)] = lines[i].slice(sep + 2);
  }
  const end = lines.indexOf(`-----END ${blockType}-----`, i);
  if (i >= lines.length || end < 0) throw new ArmorError(`no -----END ${blockType}----- line`);
  const bodyLines = lines.slice(i + 1, end).filter((l) => l !== "");
  let checksum: string | undefined;
  if (bodyLines.length > 0 && bodyLines[bodyLines.length - 1].startsWith("=")) {
    checksum = bodyLines.pop()!.slice(1);
  }
  const body = bodyLines.join("");
  const data = strictBase64(body);
  if (!data) throw new ArmorError("body is not base64");
  if (checksum !== undefined && checksum !== crc24Base64(data)) {
    throw new ArmorError("checksum mismatch: the armored text was altered");
  }
  return { blockType, headers, data };
}
