import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { goPlatform } from "@chaind/core/go-platform";
import { binaryForPlatform, planInfoSource, validatePlanInfo } from "@chaind/core/plan-info";
import { PlanInfoError } from "@chaind/core/plan-info-error";
import { describe, expect, it } from "vitest";

const SHA = "a".repeat(64);
const inline = (binaries: Record<string, unknown>) => JSON.stringify({ binaries });
const refusal = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    if (e instanceof PlanInfoError) return `${e.code}: ${e.message}`;
    throw e;
  }
  throw new Error("accepted");
};

describe("plan info, as chaind's CLI checks it and visor reads it", () => {
  it("accepts the inline form and the document-URL form alike", () => {
    const doc = `https://example.com/plan.json?checksum=sha256:${SHA}`;
    expect(() => validatePlanInfo(doc, { requireChecksum: true })).not.toThrow();
    expect(planInfoSource(doc, { mustHaveChecksum: true })).toEqual({
      kind: "document",
      document: { url: "https://example.com/plan.json", checksum: { algorithm: "sha256", hex: SHA } },
    });
    const info = inline({ "linux/amd64": `https://example.com/a.tar.gz?checksum=sha256:${SHA}` });
    expect(() => validatePlanInfo(info, { requireChecksum: true })).not.toThrow();
  });

  it("refuses, with the entry named, what visor would refuse: schemes, keys, checksums", () => {
    const check = (info: string, requireChecksum = true) =>
      refusal(() => validatePlanInfo(info, { requireChecksum }));
    expect(check(inline({ "linux/amd64": `ftp://example.com/a?checksum=sha256:${SHA}` }))).toBe(
      `PLAN_INFO: binaries.linux/amd64: unsupported URL scheme ftp: in ftp://example.com/a?checksum=sha256:${SHA}`,
    );
    expect(check(`ftp://example.com/plan.json?checksum=sha256:${SHA}`)).toMatch(
      /^PLAN_INFO: unsupported URL scheme ftp:/,
    );
    expect(check(inline({ "Linux AMD64": "https://example.com/a" }), false)).toMatch(/invalid platform key/);
    expect(check(inline({ any: "https://example.com/a" }))).toBe(
      "CHECKSUM: binaries.any: missing checksum query parameter in https://example.com/a",
    );
    expect(check(inline({ any: "https://example.com/a?checksum=sha256:abc" }))).toMatch(
      /^CHECKSUM: binaries.any: invalid checksum "sha256:abc"/,
    );
    expect(check(inline({}))).toBe("PLAN_INFO: binaries is empty");
    expect(check("{not json")).toMatch(/^PLAN_INFO: plan info is not valid JSON/);
    expect(check("   ")).toBe("PLAN_INFO: plan info is empty: no binary to download");
    expect(check("v2 binaries at example.com")).toBe(
      'PLAN_INFO: plan info is neither JSON {"binaries": …} nor the URL of such a document: "v2 binaries at example.com"',
    );
    expect(check(inline({ any: 42 }))).toBe("PLAN_INFO: plan info: binaries.any must be a URL string");
  });

  it("takes go-getter's checksum types: sha256, sha384, sha512; md5 and sha1 only when weak ones are allowed", () => {
    const url = (c: string) => `https://example.com/a?checksum=${c}`;
    expect(parseChecksummedUrl(url(`sha384:${"B".repeat(96)}`), true).checksum).toEqual({
      algorithm: "sha384",
      hex: "b".repeat(96),
    });
    expect(refusal(() => parseChecksummedUrl(url(`md5:${"a".repeat(32)}`), true))).toBe(
      `CHECKSUM: weak checksum md5 in ${url(`md5:${"a".repeat(32)}`)}: use sha256, sha384 or sha512, or set VISOR_ALLOW_WEAK_CHECKSUMS=true to accept md5 and sha1 (the digest is still checked)`,
    );
    expect(parseChecksummedUrl(url(`sha1:${"a".repeat(40)}`), true, true).checksum?.algorithm).toBe("sha1");
    expect(refusal(() => parseChecksummedUrl(url(`sha384:${"a".repeat(64)}`), true))).toMatch(
      /^CHECKSUM: invalid checksum "sha384:a{64}": use sha256:<64 hex>, sha384:<96 hex> or sha512:<128 hex>$/,
    );
  });

  it("picks this platform's entry, else any, and parses only that one", () => {
    const own = goPlatform();
    const binaries = { [own]: `https://example.com/own?checksum=sha256:${SHA}`, "plan9/mips": "::bad::" };
    expect(binaryForPlatform(binaries, own, { source: "plan info", mustHaveChecksum: true })).toMatchObject({
      url: "https://example.com/own",
      platform: own,
    });
    expect(
      binaryForPlatform({ any: "https://example.com/any" }, own, {
        source: "plan info",
        mustHaveChecksum: false,
      }).platform,
    ).toBe("any");
    expect(
      refusal(() =>
        binaryForPlatform({ "plan9/mips": "x" }, own, { source: "doc", mustHaveChecksum: false }),
      ),
    ).toBe(`PLAN_INFO: doc has no binary for ${own} (nor "any"); it lists: plan9/mips`);
  });

  it("names platforms as Go does", () => {
    expect(goPlatform("linux", "x64")).toBe("linux/amd64");
    expect(goPlatform("win32", "ia32")).toBe("windows/386");
    expect(goPlatform("darwin", "arm64")).toBe("darwin/arm64");
  });
});
