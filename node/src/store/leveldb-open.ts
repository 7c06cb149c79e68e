import { Level } from "level";
import { StoreLockedError } from "./store-errors.js";

/**
 * Opens a home's LevelDB with byte keys and values. A folder another process holds (LevelDB's lock: a running
 * node) is a StoreLockedError; any other failure names the folder and LevelDB's reason.
 */
export async function openLevelDb(
  dir: string,
  opts: { createIfMissing?: boolean } = {},
): Promise<Level<Uint8Array, Uint8Array>> {
  const db = new Level<Uint8Array, Uint8Array>(dir, {
    createIfMissing: opts.createIfMissing ?? true,
    keyEncoding: "view",
    valueEncoding: "view",
  });
  try {
    await db.open();
  } catch (e) {
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.code === "LEVEL_LOCKED") throw new StoreLockedError(dir);
    throw new Error(`cannot open database ${dir}: ${cause?.message ?? (e as Error).message}`);
  }
  return db;
}
