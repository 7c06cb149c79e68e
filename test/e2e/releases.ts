import { createHash } from "node:crypto";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { x as extractTar } from "tar";
import { buildRelease, planInfoFor } from "../../scripts/release.js";
import { sha256File } from "../supervisor/visor-home.js";

const ROOT = join(import.meta.dirname, "..", "..");

export interface FixtureRelease {
  version: string;
  archive: string;
  sha256: string;
  /** Plan.info naming this platform's archive, with its checksum, at the base URL given. */
  planInfo: string;
  /** The extracted executable (bin/chaind). */
  binary: string;
}

/** Changes whenever anything a release is built from changes: the cache key of one test run's builds. */
function sourceKey(): string {
  const h = createHash("sha256");
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else h.update(`${p}:${st.size}:${st.mtimeMs}\n`);
    }
  };
  for (const d of ["core/src", "proto/gen", "node/src", "fixtures/testchain"]) walk(join(ROOT, d));
  for (const f of ["scripts/release.ts", "scripts/shipped-code-cache.ts", "package-lock.json"])
    h.update(`${f}:${statSync(join(ROOT, f)).mtimeMs}\n`);
  return h.digest("hex").slice(0, 16);
}

/**
 * fixtures/testchain/<v> built with `npm run release`'s code, once per source state (every test file of a run
 * shares the build through a cache folder), copied into `out` for a release server at `baseUrl`.
 */
const VERSIONS = { v1: "1.0.0", v2: "2.0.0", v3: "3.0.0", "v2-broken": "2.0.0-broken" } as const;

export async function fixtureRelease(
  out: string,
  baseUrl: string,
  v: keyof typeof VERSIONS,
): Promise<FixtureRelease> {
  const version = VERSIONS[v];
  const cache = join(tmpdir(), `chaind-e2e-releases-${sourceKey()}`, v);
  if (!existsSync(cache)) {
    // Built aside and renamed into place, so a parallel test file never sees half a cache entry.
    const staging = mkdtempSync(join(tmpdir(), `chaind-e2e-build-${v}-`));
    await buildRelease({ app: `fixtures/testchain/${v}`, version, out: staging, baseUrl: "http://unused" });
    mkdirSync(join(cache, ".."), { recursive: true });
    try {
      renameSync(staging, cache);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const file = readdirSync(cache).find((f) => f.endsWith(".tar.gz"))!;
  mkdirSync(out, { recursive: true });
  const archive = join(out, file);
  copyFileSync(join(cache, file), archive);
  const sha256 = sha256File(archive);
  const planInfo = planInfoFor(baseUrl, basename(archive), sha256);
  const unpacked = mkdtempSync(join(tmpdir(), `release-${v}-`));
  await extractTar({ file: archive, cwd: unpacked });
  return { version, archive, sha256, planInfo, binary: join(unpacked, "bin", "chaind") };
}
