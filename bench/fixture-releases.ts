import { buildRelease, type Release } from "../scripts/release.js";

export type { Release as BuiltRelease };

/** fixtures/testchain/<v> built with `npm run release`'s own code into `out`, for a server at `baseUrl`. */
export async function buildFixtureRelease(v: "v1" | "v2", out: string, baseUrl: string): Promise<Release> {
  return buildRelease({ app: `fixtures/testchain/${v}`, version: `${v.slice(1)}.0.0`, out, baseUrl });
}
