import { describe, expect, it } from "vitest";
import { skipHeightsOf } from "../../supervisor/src/run/skip-heights.js";

describe("the heights visor reads from the daemon's --unsafe-skip-upgrades", () => {
  it("takes =list, a comma list, space-separated heights and repeats, and stops at the next flag", () => {
    expect([...skipHeightsOf(["start", "--unsafe-skip-upgrades=10,20"])]).toEqual([10, 20]);
    expect([...skipHeightsOf(["start", "--unsafe-skip-upgrades", "10,20", "30", "--home", "h"])]).toEqual([
      10, 20, 30,
    ]);
    expect([...skipHeightsOf(["--unsafe-skip-upgrades", "7", "--unsafe-skip-upgrades", "8"])]).toEqual([
      7, 8,
    ]);
    expect([...skipHeightsOf(["start", "--unsafe-skip-upgrades", "10,x", "20"])]).toEqual([]);
  });
});
