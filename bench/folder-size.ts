import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** Bytes and files under a folder (apparent sizes, as `du --apparent-size` counts them). */
export function folderSize(dir: string): { bytes: number; files: number } {
  let bytes = 0;
  let files = 0;
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const st = statSync(join(dir, name));
    if (st.isFile()) {
      bytes += st.size;
      files++;
    }
  }
  return { bytes, files };
}
