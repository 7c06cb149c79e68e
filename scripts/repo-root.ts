import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The checkout: the nearest folder above `from` whose package.json declares the workspaces. Scripts run from
 * scripts/ (tests import them) and from dist/scripts/ (npm run), so a fixed number of `..` fits only one.
 */
export function repoRoot(from: string = import.meta.dirname): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const pkg = join(dir, "package.json");
    if (existsSync(pkg) && "workspaces" in (JSON.parse(readFileSync(pkg, "utf8")) as object)) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json with workspaces above ${from}`);
  }
}
