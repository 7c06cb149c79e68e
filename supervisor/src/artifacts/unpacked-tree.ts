import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

/**
 * What a folder an artifact was unpacked into holds, entry by entry: its path (`/`-separated, relative to the
 * folder) to `dir <mode>`, `file <mode> <sha256>` or `link <target>`. A pre-fetch records it for the folder it
 * unpacked, so the halt can tell that folder still holds exactly that before taking it.
 */
export type UnpackedTree = Record<string, string>;

/** Who visor runs as (POSIX): everything it takes must still be theirs. */
const self = process.getuid && process.getgid ? { uid: process.getuid(), gid: process.getgid() } : null;

/** The entries under `dir`; throws when one is not owned by visor's user and group. */
export function treeOf(dir: string): UnpackedTree {
  const tree: UnpackedTree = {};
  const walk = (path: string, rel: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const key = rel ? `${rel}/${name}` : name;
      const st = lstatSync(full);
      if (self && (st.uid !== self.uid || st.gid !== self.gid))
        throw new Error(`${key} is owned by another user`);
      const mode = (st.mode & 0o7777).toString(8);
      if (st.isSymbolicLink()) tree[key] = `link ${readlinkSync(full)}`;
      else if (st.isDirectory()) {
        tree[key] = `dir ${mode}`;
        walk(full, key);
      } else if (st.isFile())
        tree[key] = `file ${mode} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`;
      else throw new Error(`${key} is neither a file, a folder nor a link`);
    }
  };
  walk(dir, "");
  return tree;
}

/** The sha256 (hex) a tree records for the regular file at `path`; undefined when it records none there. */
export function fileDigestOf(tree: UnpackedTree, path: string): string | undefined {
  return tree[path]?.match(/^file [0-7]+ ([0-9a-f]{64})$/)?.[1];
}

/** Why `dir` does not hold exactly `expected`; null when it does. */
export function treeDiffers(dir: string, expected: UnpackedTree): string | null {
  let found: UnpackedTree;
  try {
    found = treeOf(dir);
  } catch (e) {
    return (e as Error).message;
  }
  for (const [path, entry] of Object.entries(expected)) {
    if (!Object.hasOwn(found, path)) return `${path} is missing`;
    if (found[path] !== entry) return `${path} is not what was unpacked (${found[path]}, not ${entry})`;
  }
  const extra = Object.keys(found).find((path) => !Object.hasOwn(expected, path));
  return extra === undefined ? null : `${extra} was not unpacked from the artifact`;
}
