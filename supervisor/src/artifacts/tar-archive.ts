import { isAbsolute, posix } from "node:path";
import { extract, list } from "tar";
import { VisorError } from "../errors/visor-error.js";
import { lackOfSpace } from "../host/disk-space.js";

/**
 * Every entry must stay inside the target: no absolute or `..` paths, no symbolic links at all (as cosmovisor:
 * a chain of links that each read as inside can still lead out once resolved, and a binary release needs none),
 * hard links only to a path inside that passes through no link the archive made, no path through such a link,
 * no devices, no giants, and all of it must fit on the disk beside the download. Read with `strict`, so a
 * damaged archive is refused here, before anything is written.
 */
export async function checkTar(file: string, dir: string, maxBytes: number): Promise<void> {
  const problems: string[] = [];
  let total = 0;
  const links = new Set<string>();
  const throughLink = (norm: string) => {
    const parts = norm.split("/");
    for (let i = 1; i < parts.length; i++) if (links.has(parts.slice(0, i).join("/"))) return true;
    return false;
  };
  const outside = (norm: string) => norm === ".." || norm.startsWith("../");
  const listing = list({
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
      if ((e.size ?? 0) > maxBytes)
        problems.push(`entry ${JSON.stringify(p)} is larger than ${maxBytes} bytes`);
      total += e.size ?? 0;
      e.resume();
    },
  });
  // A hostile header (a 5 GiB entry with no bytes behind it) is named as such, not as the damage it causes.
  await listing.catch((e) => {
    if (!problems.length) throw e;
  });
  if (total > maxBytes) problems.push(`its entries hold ${total} bytes, more than ${maxBytes}`);
  const lack = problems.length ? null : lackOfSpace(dir, total);
  if (lack) problems.push(`not enough disk space to unpack it: ${lack}`);
  if (problems.length) throw new VisorError("ARCHIVE", `refusing archive: ${problems.join("; ")}`);
}

/**
 * Unpacks a checked tar into `dir`. Modes come from the umask, not the archive (tar's chmod would give folders
 * an archive's 0777); owners are never the archive's (tar keeps them by default when run as root).
 */
export async function extractTar(file: string, dir: string): Promise<void> {
  await extract({ file, cwd: dir, strict: true, preservePaths: false, preserveOwner: false });
}
