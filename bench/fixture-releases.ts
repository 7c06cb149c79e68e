import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { REPO_ROOT } from "./repo-paths.js";

export interface BuiltRelease {
  archive: string;
  sha256: string;
  planInfo: string;
}

type BuildRelease = (opts: {
  app: string;
  version: string;
  out: string;
  baseUrl?: string;
}) => Promise<BuiltRelease>;

/** fixtures/testchain/<v> built with `npm run release`'s own code into `out`, for a server at `baseUrl`. */
export async function buildFixtureRelease(
  v: "v1" | "v2",
  out: string,
  baseUrl: string,
): Promise<BuiltRelease> {
  const mod = (await import(pathToFileURL(join(REPO_ROOT, "scripts", "release.js")).href)) as {
    buildRelease: BuildRelease;
  };
  return mod.buildRelease({ app: `fixtures/testchain/${v}`, version: `${v.slice(1)}.0.0`, out, baseUrl });
}
