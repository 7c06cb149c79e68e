/** Go's os/arch names as plan-info keys them, plus "any". */
const PLATFORM_KEY = /^(any|[a-z0-9]+\/[a-z0-9]+)$/;
const CHECKSUM = /^(sha256:[0-9a-fA-F]{64}|sha512:[0-9a-fA-F]{128})$/;

/**
 * Checks Plan.info the way a supervisor will read it: JSON `{"binaries": {"linux/amd64": "<url>?checksum=…"}}`
 * keyed by os/arch or "any", each URL absolute and (unless not required) carrying a sha256/sha512 checksum.
 */
export function validatePlanInfo(info: string, opts: { requireChecksum: boolean }): void {
  let doc: unknown;
  try {
    doc = JSON.parse(info);
  } catch (e) {
    throw new Error(`not JSON: ${(e as Error).message}`);
  }
  const binaries = (doc as { binaries?: unknown } | null)?.binaries;
  if (!binaries || typeof binaries !== "object" || Array.isArray(binaries))
    throw new Error('expected an object {"binaries": {"<os>/<arch>": "<url>"}}');
  const entries = Object.entries(binaries as Record<string, unknown>);
  if (entries.length === 0) throw new Error("binaries is empty");
  for (const [platform, url] of entries) {
    if (!PLATFORM_KEY.test(platform))
      throw new Error(`invalid platform key ${JSON.stringify(platform)}: use os/arch (linux/amd64) or any`);
    if (typeof url !== "string") throw new Error(`binaries.${platform} must be a URL string`);
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`binaries.${platform}: invalid URL ${JSON.stringify(url)}`);
    }
    const checksum = parsed.searchParams.get("checksum");
    if (checksum === null) {
      if (opts.requireChecksum) throw new Error(`binaries.${platform}: missing checksum query parameter`);
    } else if (!CHECKSUM.test(checksum)) {
      throw new Error(`binaries.${platform}: checksum must be sha256:<64 hex> or sha512:<128 hex>`);
    }
  }
}
