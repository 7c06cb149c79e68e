import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Whether this machine lets us mount a small tmpfs (root with CAP_SYS_ADMIN): the only honest full disk. */
export function canMountTmpfs(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "tmpfs-probe-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], { stdio: "ignore" });
    execFileSync("umount", [dir], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
