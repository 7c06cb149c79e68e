import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { checkBinaryRuns } from "../daemon/binary-runs-check.js";
import { VisorError } from "../errors/visor-error.js";

/** The binary the operator named: a file that exists, else a one-line error. */
export function givenBinary(src: string): string {
  const path = resolve(src);
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) throw new VisorError("BINARY_MISSING", `no such file: ${path}`);
  if (!st.isFile()) throw new VisorError("BINARY_MISSING", `${path} is not a file`);
  return path;
}

/**
 * Copies a binary into a folder's bin/, with what a chaind release keeps beside it when there: the Swagger UI
 * files, and the V8 code cache the release shipped (`<binary>.code-cache`, which its launcher takes only for the
 * program it was made from; one left from a binary installed there before is removed). The copy must run
 * (`version`) where it lands, or nothing is installed: a launcher that only works beside its own files would
 * otherwise be found out at the halt.
 */
export async function installBinary(src: string, dir: string, name: string): Promise<string> {
  const path = givenBinary(src);
  const made = !existsSync(dir);
  mkdirSync(join(dir, "bin"), { recursive: true });
  const dest = join(dir, "bin", name);
  // Copied beside it, then renamed over it: the binary is the old one or the new one, never half of one. Under
  // its own name and as deep in the folder as it will be, so it runs as it will (Node reads the extension).
  const staging = join(dir, `.new-${process.pid}`);
  const tmp = join(staging, "bin", name);
  try {
    mkdirSync(dirname(tmp), { recursive: true });
    copyFileSync(path, tmp);
    chmodSync(tmp, 0o755);
    await checkBinaryRuns(tmp, src);
    renameSync(tmp, dest);
  } catch (e) {
    // A folder made for nothing would read as an upgrade folder without its binary.
    if (made) rmSync(dir, { recursive: true, force: true });
    throw e;
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
  const assets = join(dirname(path), "swagger-ui");
  if (existsSync(assets)) cpSync(assets, join(dir, "bin", "swagger-ui"), { recursive: true });
  rmSync(`${dest}.code-cache`, { force: true });
  if (trustedCodeCache(`${path}.code-cache`, path)) {
    const cacheTmp = `${dest}.code-cache.new-${process.pid}`;
    try {
      copyFileSync(`${path}.code-cache`, cacheTmp);
      chmodSync(cacheTmp, 0o644);
      renameSync(cacheTmp, `${dest}.code-cache`);
    } finally {
      rmSync(cacheTmp, { force: true });
    }
  }
  return dest;
}

/**
 * A code cache is code the node runs: copied only under the launcher's own rule, from a plain file owned by this
 * user or by the binary's owner that no one else may write. Else (one another user left beside a binary in /tmp)
 * the copy would belong to this user and pass that rule; the node then builds its own cache on its first run.
 */
function trustedCodeCache(cache: string, binary: string): boolean {
  const st = lstatSync(cache, { throwIfNoEntry: false });
  if (!st?.isFile() || (st.mode & 0o022) !== 0) return false;
  return st.uid === process.getuid?.() || st.uid === statSync(binary).uid;
}
