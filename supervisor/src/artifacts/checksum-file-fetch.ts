import { checksumFromFile } from "@chaind/core/checksum-file";
import { type ChecksummedUrl, refuseWeak } from "@chaind/core/checksummed-url";
import { PlanInfoError } from "@chaind/core/plan-info-error";
import { VisorError } from "../errors/visor-error.js";
import { type FetchPolicy, readUrl } from "./url-fetch.js";

/** A checksum file lists digests, not releases: far more than any real one holds. */
const MAX_CHECKSUM_FILE_BYTES = 1024 * 1024;
const CHECKSUM_FILE_TIMEOUT_MS = 30_000;

/**
 * `src` with the digest its checksum file (`?checksum=file:<url>`) lists for it, read under the same policy as
 * the artifact (schemes, VISOR_ALLOW_FILE_URLS), bounded in size and time; `src` as it is when it names none.
 * A weak digest found there is refused unless `allowWeak`, as one in the URL is.
 */
export async function withChecksumFromFile(
  src: ChecksummedUrl,
  opts: { policy: FetchPolicy; allowWeak: boolean },
): Promise<ChecksummedUrl> {
  const file = src.checksumFile;
  if (!file) return src;
  let text: string;
  try {
    const buf = await readUrl(file, opts.policy, {
      maxBytes: MAX_CHECKSUM_FILE_BYTES,
      limitName: "the limit for checksum files",
      signal: AbortSignal.timeout(CHECKSUM_FILE_TIMEOUT_MS),
    });
    text = buf.toString("utf8");
  } catch (e) {
    throw new VisorError("CHECKSUM", `cannot fetch the checksum file ${file}: ${(e as Error).message}`);
  }
  try {
    const checksum = checksumFromFile(text, src.url, file);
    refuseWeak(checksum.algorithm, `the checksum file ${file}`, opts.allowWeak);
    return { url: src.url, checksum };
  } catch (e) {
    throw e instanceof PlanInfoError ? new VisorError(e.code, e.message) : e;
  }
}
