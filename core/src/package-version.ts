import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// A release bundle defines this identifier (esbuild `define`); an environment variable could not be trusted,
// since any user could set it.
declare const __RELEASE_VERSION__: string | undefined;

/**
 * The version of the program `moduleUrl` belongs to: compiled into a release bundle, else read from the
 * nearest package.json above that module (its workspace's).
 */
export function packageVersion(moduleUrl: string): string {
  if (typeof __RELEASE_VERSION__ === "string") return __RELEASE_VERSION__;
  let dir = dirname(fileURLToPath(moduleUrl));
  for (let i = 0; i < 8; i++) {
    try {
      return (JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { version: string }).version;
    } catch {
      dir = dirname(dir);
    }
  }
  return "0.0.0";
}
