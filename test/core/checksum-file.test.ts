import { checksumFromFile } from "@chaind/core/checksum-file";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { PlanInfoError } from "@chaind/core/plan-info-error";
import { describe, expect, it } from "vitest";

const A = "a".repeat(64);
const B = "b".repeat(128);
const C = "c".repeat(96);
const ART = "https://rel.example/v2/app-linux-amd64.tar.gz";
const SUMS = "https://rel.example/SHA256SUMS";

describe("checksum files (?checksum=file:<url>), as go-getter reads them", () => {
  it("parses the file: form into the artifact URL and the checksum file's URL", () => {
    expect(parseChecksummedUrl(`${ART}?checksum=file:${SUMS}`, true)).toEqual({
      url: ART,
      checksum: null,
      checksumFile: SUMS,
    });
    expect(() => parseChecksummedUrl(`${ART}?checksum=file:ftp://x/SUMS`, true)).toThrow(
      /unsupported URL scheme ftp: for the checksum file/,
    );
    expect(() => parseChecksummedUrl(`${ART}?checksum=file:nonsense`, true)).toThrow(
      /invalid checksum file URL "nonsense"/,
    );
  });

  it("takes a bare ?checksum=<hex>, its type told by its length, weak ones only when allowed", () => {
    expect(parseChecksummedUrl(`${ART}?checksum=${B}`, true).checksum).toEqual({
      algorithm: "sha512",
      hex: B,
    });
    expect(() => parseChecksummedUrl(`${ART}?checksum=${"d".repeat(32)}`, true)).toThrow(/weak checksum md5/);
    expect(() => parseChecksummedUrl(`${ART}?checksum=abc`, true)).toThrow(/invalid checksum "abc"/);
  });

  it("finds the artifact's line in GNU and BSD forms, by name, *name, relative path or ./path", () => {
    const gnu = `${"e".repeat(64)}  other.tar.gz\n${A}  app-linux-amd64.tar.gz\n`;
    expect(checksumFromFile(gnu, ART, SUMS)).toEqual({ algorithm: "sha256", hex: A });
    expect(checksumFromFile(`${B} *app-linux-amd64.tar.gz\n`, ART, SUMS)).toEqual({
      algorithm: "sha512",
      hex: B,
    });
    expect(checksumFromFile(`${C}  v2/app-linux-amd64.tar.gz\n`, ART, SUMS)).toEqual({
      algorithm: "sha384",
      hex: C,
    });
    expect(checksumFromFile(`${A}  ./v2/app-linux-amd64.tar.gz`, ART, SUMS).hex).toBe(A);
    const bsd = `SHA512 (other) = ${"f".repeat(128)}\r\nSHA512 (app-linux-amd64.tar.gz) = ${B.toUpperCase()}\r\n`;
    expect(checksumFromFile(bsd, ART, SUMS)).toEqual({ algorithm: "sha512", hex: B });
  });

  it("takes a file holding one digest and nothing else for any artifact", () => {
    expect(checksumFromFile(`${A}\n`, ART, SUMS)).toEqual({ algorithm: "sha256", hex: A });
  });

  it("skips lines it cannot read, and says which file lacks the artifact", () => {
    const text = `# comment line here\nSHA256 (app-linux-amd64.tar.gz) = ${"a".repeat(63)}\n${A}  other\n`;
    const e = (() => {
      try {
        checksumFromFile(text, ART, SUMS);
      } catch (err) {
        return err as PlanInfoError;
      }
    })();
    expect(e).toBeInstanceOf(PlanInfoError);
    expect(e?.code).toBe("CHECKSUM");
    expect(e?.message).toBe(
      `the checksum file ${SUMS} lists no checksum for "app-linux-amd64.tar.gz" (expected lines such as "<sha256 hex>  app-linux-amd64.tar.gz" or "SHA256 (app-linux-amd64.tar.gz) = <hex>")`,
    );
  });

  it("refuses a malformed percent escape (%zz) in either URL's path as a one-line checksum error naming the file", () => {
    for (const [art, sums] of [
      ["https://releases.example/v1/app%zz.tar.gz", SUMS],
      [ART, "https://releases.example/v1/%zz/SHA256SUMS"],
    ]) {
      let e: unknown;
      try {
        checksumFromFile(`${A}  app.tar.gz\n`, art, sums);
      } catch (err) {
        e = err;
      }
      expect(e).toBeInstanceOf(PlanInfoError);
      expect((e as PlanInfoError).code).toBe("CHECKSUM");
      expect((e as PlanInfoError).message).toMatch(
        new RegExp(
          `^cannot match the checksum file ${sums.replace(/[.?]/g, "\\$&")} to .*: its path ".*%zz.*" holds a malformed percent escape$`,
        ),
      );
    }
  });
});
