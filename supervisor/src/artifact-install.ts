import {
  chmodSync,
  closeSync,
  existsSync,
  lchownSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  renameSync,
  rmSync,
} from "node:fs";
import { isAbsolute, join, normalize, posix } from "node:path";
import { extract as extractTar, list as listTar } from "tar";
import { lackOfSpace } from "./disk-space.js";
import { VisorError } from "./visor-error.js";

/** Past this, an archive entry is refused (a decompression bomb is not a binary); so is an archive past it in all. */
export const MAX_ENTRY_BYTES = 4 * 1024 ** 3;

function isArchive(file: string): boolean {
  const head = Buffer.alloc(262);
  const fd = openSync(file, "r");
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head[0] === 0x1f && head[1] === 0x8b) return true;
  return head.subarray(257, 262).toString("latin1") === "ustar";
}

/**
 * Every entry must stay inside the target: no absolute or `..` paths, no symbolic links at all (as cosmovisor:
 * a chain of links that each read as inside can still lead out once resolved, and a binary release needs none),
 * hard links only to a path inside that passes through no link the archive made, no path through such a link,
 * no devices, no giants, and all of it must fit on the disk beside the download. Read with `strict`, so a
 * damaged archive is refused here, before anything is written.
 */
async function checkEntries(file: string, dir: string): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  const links = new Set<string>();
  const throughLink = (norm: string) => {
    const parts = norm.split("/");
    for (let i = 1; i < parts.length; i++) if (links.has(parts.slice(0, i).join("/"))) return true;
    return false;
  };
  const outside = (norm: string) => norm === ".." || norm.startsWith("../");
  const listing = listTar({
    file,
    strict: true,
    onReadEntry: (e) => {
      const p = e.path;
      const norm = posix.normalize(p).replace(/\/+$/, "");
      if (throughLink(norm)) problems.push(`entry ${JSON.stringify(p)} passes through a link in the archive`);
      if (isAbsolute(p) || p.startsWith("/") || outside(norm))
        problems.push(`entry ${JSON.stringify(p)} points outside the upgrade folder`);
      if (e.type === "SymbolicLink")
        problems.push(
          `entry ${JSON.stringify(p)} is a symbolic link (-> ${JSON.stringify(e.linkpath)}): visor, like cosmovisor, unpacks none`,
        );
      if (e.type === "Link") {
        const target = posix.normalize(e.linkpath ?? "");
        if (isAbsolute(e.linkpath ?? "") || outside(target))
          problems.push(
            `link ${JSON.stringify(p)} -> ${JSON.stringify(e.linkpath)} points outside the upgrade folder`,
          );
        else if (throughLink(target))
          problems.push(
            `link ${JSON.stringify(p)} -> ${JSON.stringify(e.linkpath)} passes through a link in the archive`,
          );
      }
      if (e.type === "SymbolicLink" || e.type === "Link") links.add(norm);
      if (["CharacterDevice", "BlockDevice", "FIFO"].includes(e.type))
        problems.push(`entry ${JSON.stringify(p)} is a ${e.type}`);
      if ((e.size ?? 0) > MAX_ENTRY_BYTES)
        problems.push(`entry ${JSON.stringify(p)} is larger than ${MAX_ENTRY_BYTES} bytes`);
      total += e.size ?? 0;
      e.resume();
    },
  });
  // A hostile header (a 5 GiB entry with no bytes behind it) is named as such, not as the damage it causes.
  await listing.catch((e) => {
    if (!problems.length) throw e;
  });
  if (total > MAX_ENTRY_BYTES) problems.push(`its entries hold ${total} bytes, more than ${MAX_ENTRY_BYTES}`);
  const lack = problems.length ? null : lackOfSpace(dir, total);
  if (lack) problems.push(`not enough disk space to unpack it: ${lack}`);
  if (problems.length) throw new VisorError("ARCHIVE", `refusing archive: ${problems.join("; ")}`);
}

/** Who visor runs as: every installed file becomes theirs (POSIX; elsewhere files keep their owner). */
const self = process.getuid && process.getgid ? { uid: process.getuid(), gid: process.getgid() } : null;

/**
 * Nothing visor installs may be changed by another local user before it runs: every file, folder and link is
 * owned by visor's own user and group (an archive's owners are never kept), none is group- or world-writable,
 * and none is set-user-ID or set-group-ID (a root visor would otherwise hand local users a root program).
 */
function secureTree(path: string): void {
  const st = lstatSync(path);
  if (self && (st.uid !== self.uid || st.gid !== self.gid)) lchownSync(path, self.uid, self.gid);
  if (st.isSymbolicLink()) return;
  if ((st.mode & 0o6022) !== 0) chmodSync(path, st.mode & 0o1755);
  if (st.isDirectory()) for (const f of readdirSync(path)) secureTree(join(path, f));
}

/** tar's own errors (a damaged header, a write through a link) as visor's. */
const archiveError = (file: string, e: unknown) =>
  e instanceof VisorError ? e : new VisorError("ARCHIVE", `cannot unpack ${file}: ${(e as Error).message}`);

/**
 * Installs a verified download into an upgrade folder: an archive is unpacked whole (its `bin/<name>`, or
 * `<name>` at the top, is the binary), a single file becomes `bin/<name>`. Everything is visor's own and never
 * group- or world-writable; the binary is made executable.
 */
export async function installArtifact(file: string, dir: string, name: string): Promise<string> {
  mkdirSync(join(dir, "bin"), { recursive: true });
  const bin = join(dir, "bin", name);
  if (isArchive(file)) {
    await checkEntries(file, dir).catch((e) => {
      throw archiveError(file, e);
    });
    // Modes come from the umask, not the archive (tar's chmod would give folders an archive's 0777); owners
    // are never the archive's (tar keeps them by default when run as root).
    await extractTar({ file, cwd: dir, strict: true, preservePaths: false, preserveOwner: false }).catch(
      (e) => {
        throw archiveError(file, e);
      },
    );
    if (!existsSync(bin) && existsSync(join(dir, name))) renameSync(join(dir, name), bin);
    if (!existsSync(bin))
      throw new VisorError("ARCHIVE", `the archive holds neither bin/${name} nor ${name}`);
    rmSync(file, { force: true });
  } else {
    renameSync(file, bin);
  }
  secureTree(dir);
  chmodSync(bin, 0o755);
  return normalize(bin);
}
