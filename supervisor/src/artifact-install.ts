import {
  chmodSync,
  closeSync,
  existsSync,
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
import { VisorError } from "./visor-error.js";

/** Past this, an archive entry is refused (a decompression bomb is not a binary). */
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
 * Every entry must stay inside the target: no absolute or `..` paths, no links out, no path through a link the
 * archive made (a chain of links that are each inside can still lead out), no devices, no giants. Read with
 * `strict`, so a damaged archive is refused here, before anything is written.
 */
async function checkEntries(file: string): Promise<void> {
  const problems: string[] = [];
  const links = new Set<string>();
  const throughLink = (norm: string) => {
    const parts = norm.split("/");
    for (let i = 1; i < parts.length; i++) if (links.has(parts.slice(0, i).join("/"))) return true;
    return false;
  };
  const listing = listTar({
    file,
    strict: true,
    onReadEntry: (e) => {
      const p = e.path;
      const norm = posix.normalize(p).replace(/\/+$/, "");
      if (throughLink(norm)) problems.push(`entry ${JSON.stringify(p)} passes through a link in the archive`);
      if (isAbsolute(p) || p.startsWith("/") || norm === ".." || norm.startsWith("../"))
        problems.push(`entry ${JSON.stringify(p)} points outside the upgrade folder`);
      if (e.type === "SymbolicLink" || e.type === "Link") {
        const target =
          e.type === "Link"
            ? posix.normalize(e.linkpath ?? "")
            : posix.normalize(posix.join(posix.dirname(norm), e.linkpath ?? ""));
        if (isAbsolute(e.linkpath ?? "") || target === ".." || target.startsWith("../"))
          problems.push(
            `link ${JSON.stringify(p)} -> ${JSON.stringify(e.linkpath)} points outside the upgrade folder`,
          );
        links.add(norm);
      }
      if (["CharacterDevice", "BlockDevice", "FIFO"].includes(e.type))
        problems.push(`entry ${JSON.stringify(p)} is a ${e.type}`);
      if ((e.size ?? 0) > MAX_ENTRY_BYTES)
        problems.push(`entry ${JSON.stringify(p)} is larger than ${MAX_ENTRY_BYTES} bytes`);
      e.resume();
    },
  });
  // A hostile header (a 5 GiB entry with no bytes behind it) is named as such, not as the damage it causes.
  await listing.catch((e) => {
    if (!problems.length) throw e;
  });
  if (problems.length) throw new VisorError("ARCHIVE", `refusing archive: ${problems.join("; ")}`);
}

/** Nothing visor installs may be changed by another local user before it runs: clears group/world write. */
function removeGroupWorldWrite(path: string): void {
  const st = lstatSync(path);
  if (st.isSymbolicLink()) return;
  if ((st.mode & 0o022) !== 0) chmodSync(path, st.mode & 0o7755);
  if (st.isDirectory()) for (const f of readdirSync(path)) removeGroupWorldWrite(join(path, f));
}

/** tar's own errors (a damaged header, a write through a link) as visor's. */
const archiveError = (file: string, e: unknown) =>
  e instanceof VisorError ? e : new VisorError("ARCHIVE", `cannot unpack ${file}: ${(e as Error).message}`);

/**
 * Installs a verified download into an upgrade folder: an archive is unpacked whole (its `bin/<name>`, or
 * `<name>` at the top, is the binary), a single file becomes `bin/<name>`. The binary is made executable and
 * never group- or world-writable.
 */
export async function installArtifact(file: string, dir: string, name: string): Promise<string> {
  mkdirSync(join(dir, "bin"), { recursive: true });
  const bin = join(dir, "bin", name);
  if (isArchive(file)) {
    await checkEntries(file).catch((e) => {
      throw archiveError(file, e);
    });
    // Modes come from the umask, not the archive (tar's chmod would give folders an archive's 0777).
    await extractTar({ file, cwd: dir, strict: true, preservePaths: false }).catch((e) => {
      throw archiveError(file, e);
    });
    if (!existsSync(bin) && existsSync(join(dir, name))) renameSync(join(dir, name), bin);
    if (!existsSync(bin))
      throw new VisorError("ARCHIVE", `the archive holds neither bin/${name} nor ${name}`);
    rmSync(file, { force: true });
  } else {
    renameSync(file, bin);
  }
  removeGroupWorldWrite(dir);
  chmodSync(bin, 0o755);
  return normalize(bin);
}
