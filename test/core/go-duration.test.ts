import { formatGoDuration, parseGoDuration } from "@chaind/core/go-duration";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

describe("Go durations", () => {
  it("print as Go's Duration.String does", () => {
    const cases: [number, string][] = [
      [0, "0s"],
      [1e-6, "1ns"],
      [1.1e-3, "1.1µs"],
      [2.2, "2.2ms"],
      [500, "500ms"],
      [1000, "1s"],
      [1500, "1.5s"],
      [30_000, "30s"],
      [60_000, "1m0s"],
      [90_000, "1m30s"],
      [245_001, "4m5.001s"],
      [300_000, "5m0s"],
      [3_600_000, "1h0m0s"],
      [18_367_001, "5h6m7.001s"],
      [-1500, "-1.5s"],
    ];
    for (const [ms, text] of cases) expect(formatGoDuration(ms), String(ms)).toBe(text);
  });

  it("read back what they print, for every whole number of milliseconds", () => {
    fc.assert(
      fc.property(fc.nat({ max: 10 * 24 * 3_600_000 }), (ms) => {
        expect(parseGoDuration(formatGoDuration(ms))).toBeCloseTo(ms, 6);
      }),
    );
  });

  it("refuse what Go would refuse, naming the form", () => {
    for (const bad of ["", "5", "1d", "s", "5 s"])
      expect(() => parseGoDuration(bad), bad).toThrow(/invalid duration/);
  });
});
