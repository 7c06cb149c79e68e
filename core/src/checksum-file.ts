import { posix } from "node:path";
import { algorithmOfHex, type Checksum, isChecksumOf } from "./checksummed-url.js";
import { PlanInfoError } from "./plan-info-error.js";

/** A digest a checksum file lists, and the file name it lists it for ("" when the line names none). */
interface Listed extends Checksum {
  name: string;
}

/**
 * One line of a checksum file, in the forms go-getter reads: BSD `SHA256 (name) = <hex>`, GNU
 * `<hex>  name` / `<hex> *name` (the type told by the hex length), or a lone `<hex>` that stands for any
 * file. Anything else (a comment, a name with spaces, a digest of no known length) is skipped, as go-getter
 * skips what it cannot parse.
 */
function parseLine(line: string): Listed | null {
  const parts = line.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 4) {
    const [type, paren, eq, hex] = parts;
    const algorithm = type.toLowerCase();
    if (eq !== "=" || paren.length <= 2 || !paren.startsWith("(") || !paren.endsWith(")")) return null;
    if (!isChecksumOf(algorithm, hex)) return null;
    return { algorithm, hex: hex.toLowerCase(), name: paren.slice(1, -1) };
  }
  if (parts.length === 2 || parts.length === 1) {
    const algorithm = algorithmOfHex(parts[0]);
    return algorithm ? { algorithm, hex: parts[0].toLowerCase(), name: parts[1] ?? "" } : null;
  }
  return null;
}

/** The path of `url` with its percent escapes decoded; a malformed escape (`%zz`) is a checksum error. */
function decodedPath(url: string, checksumFileUrl: string): string {
  const { pathname } = new URL(url);
  try {
    return decodeURIComponent(pathname);
  } catch {
    throw new PlanInfoError(
      "CHECKSUM",
      `cannot match the checksum file ${checksumFileUrl} to ${url}: its path ${JSON.stringify(pathname)} holds a malformed percent escape`,
    );
  }
}

/**
 * The names a checksum file may list the artifact under, as go-getter matches them: its file name (also as
 * `*name` and `?name`), its path relative to the checksum file's folder (also `./path`), and its full path.
 */
function namesOf(artifactUrl: string, checksumFileUrl: string): Set<string> {
  const path = decodedPath(artifactUrl, checksumFileUrl);
  const base = posix.basename(path);
  const rel = posix.relative(posix.dirname(decodedPath(checksumFileUrl, checksumFileUrl)), path);
  return new Set([base, `*${base}`, `?${base}`, rel, `./${rel}`, path]);
}

/**
 * The digest a checksum file (`?checksum=file:<url>`) lists for the artifact at `artifactUrl`: the first line,
 * in file order, that names it or names no file at all. Refused when no line does.
 */
export function checksumFromFile(text: string, artifactUrl: string, checksumFileUrl: string): Checksum {
  const names = namesOf(artifactUrl, checksumFileUrl);
  for (const line of text.split("\n")) {
    const listed = parseLine(line);
    if (listed && (listed.name === "" || names.has(listed.name)))
      return { algorithm: listed.algorithm, hex: listed.hex };
  }
  const base = posix.basename(decodedPath(artifactUrl, checksumFileUrl));
  throw new PlanInfoError(
    "CHECKSUM",
    `the checksum file ${checksumFileUrl} lists no checksum for ${JSON.stringify(base)} (expected lines such as "<sha256 hex>  ${base}" or "SHA256 (${base}) = <hex>")`,
  );
}
