import { resolve } from "node:path";
import { Level } from "level";
import { VisorError } from "../errors/visor-error.js";

/** The folders this process holds: a second open of one would drop its lock (see ProcessLock). */
const held = new Set<string>();

/**
 * An exclusive lock that one process holds until it releases it or ends, however it ends (SIGKILL included): the
 * lock of a LevelDB folder kept for nothing else. LevelDB takes it with fcntl(F_SETLK) on the folder's LOCK
 * file, so the kernel drops it with its process (no stale state, no pid to trust), a child the holder starts
 * (visor's daemon) does not inherit it, and of two processes that try at the same instant exactly one gets it.
 * Node has no file lock of its own, and LevelDB is part of visor already. fcntl locks belong to a process: a
 * second open of the folder in the holding process fails but closes a descriptor of its LOCK file, which would
 * drop the lock, so this process never tries a folder it holds.
 */
export class ProcessLock {
  private constructor(
    private readonly db: Level<string, string>,
    private readonly dir: string,
  ) {}

  /** The lock of `dir` (made if missing), or null while another process, or this one, holds it. */
  static async tryTake(dir: string): Promise<ProcessLock | null> {
    const path = resolve(dir);
    if (held.has(path)) return null;
    held.add(path);
    const db = new Level<string, string>(path);
    try {
      await db.open();
    } catch (e) {
      held.delete(path);
      const cause = (e as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.code === "LEVEL_LOCKED") return null;
      throw new VisorError(
        "LAYOUT",
        `cannot take the lock ${path}: ${cause?.message ?? (e as Error).message}`,
      );
    }
    return new ProcessLock(db, path);
  }

  async release(): Promise<void> {
    try {
      await this.db.close();
    } finally {
      held.delete(this.dir);
    }
  }
}
