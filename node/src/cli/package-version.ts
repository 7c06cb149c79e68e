import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of this build: a release bundle has it compiled in (scripts/release.js defines
 * CHAIND_RELEASE_VERSION); the source tree reads the nearest package.json.
 */
export function packageVersion(): string {
  const released = process.env.CHAIND_RELEASE_VERSION;
  if (released) return released;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    try {
      return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      dir = dirname(dir);
    }
  }
  return "0.0.0";
}
