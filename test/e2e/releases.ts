import { mkdirSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { x as extractTar } from "tar";
// @ts-expect-error: plain JS build script without type declarations
import { buildRelease } from "../../scripts/release.js";

export interface FixtureRelease {
  version: string;
  archive: string;
  sha256: string;
  /** Plan.info naming this platform's archive, with its checksum, at the base URL given. */
  planInfo: string;
  /** The extracted executable (bin/chaind). */
  binary: string;
}

/**
 * Builds fixtures/testchain/<v> with `npm run release`'s code into `out`, URLs under `baseUrl`; each version is
 * built once per test file.
 */
export async function fixtureRelease(
  out: string,
  baseUrl: string,
  v: "v1" | "v2" | "v3",
): Promise<FixtureRelease> {
  const version = `${v.slice(1)}.0.0`;
  const r = await buildRelease({ app: `fixtures/testchain/${v}`, version, out, baseUrl });
  const unpacked = join(mkdtempSync(join(tmpdir(), `release-${v}-`)));
  mkdirSync(unpacked, { recursive: true });
  await extractTar({ file: r.archive, cwd: unpacked });
  return {
    version,
    archive: r.archive,
    sha256: r.sha256,
    planInfo: r.planInfo,
    binary: join(unpacked, "bin", "chaind"),
  };
}
