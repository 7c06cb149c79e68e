import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  fitConnectionCaps,
  OWN_FILES_RESERVE,
  openFileLimit,
} from "../../../node/src/server/open-file-budget.js";

/** Caps as the listeners have them by default: RPC 900, REST 1000, gRPC 1000, and 32 telemetry scrapers. */
function defaults(overrides: Partial<Record<"rpc" | "api" | "grpc", number>> = {}) {
  const caps = { rpc: 900, api: 1000, grpc: 1000, ...overrides };
  const list = (["rpc", "api", "grpc"] as const).map((name) => ({
    setting: name,
    value: caps[name],
    cut: (n: number) => {
      caps[name] = n;
    },
  }));
  return { caps, list: [...list, { setting: "telemetry", value: 32 }] };
}

describe("connection caps fitted to the open-file limit", () => {
  it("reads this process's limit", () => {
    const limits = readFileSync("/proc/self/limits", "utf8");
    expect(String(openFileLimit())).toBe(limits.match(/^Max open files\s+(\d+)/m)?.[1]);
  });

  it("leaves caps alone when they fit beside the node's own files", () => {
    const { caps, list } = defaults();
    expect(fitConnectionCaps(list, 2932 + OWN_FILES_RESERVE)).toEqual([]);
    expect(caps).toEqual({ rpc: 900, api: 1000, grpc: 1000 });
  });

  it("cuts them in proportion, the fixed ones kept, so all of them leave the reserve", () => {
    const { caps, list } = defaults();
    const limit = 1024;
    expect(fitConnectionCaps(list, limit)).toEqual(["rpc 900 -> 228", "api 1000 -> 253", "grpc 1000 -> 253"]);
    expect(caps.rpc + caps.api + caps.grpc + 32).toBeLessThanOrEqual(limit - OWN_FILES_RESERVE);
  });

  it("counts a cap of 0 (no limit) as asking for every descriptor", () => {
    const { caps, list } = defaults({ api: 0 });
    const cuts = fitConnectionCaps(list, 1024);
    expect(cuts[1]).toBe(`api 0 (no limit) -> ${caps.api}`);
    expect(caps.api).toBeGreaterThan(caps.rpc);
    expect(caps.rpc + caps.api + caps.grpc + 32).toBeLessThanOrEqual(1024 - OWN_FILES_RESERVE);
  });

  it("keeps one connection each when the limit leaves none", () => {
    const { caps, list } = defaults();
    fitConnectionCaps(list, 100);
    expect(caps).toEqual({ rpc: 1, api: 1, grpc: 1 });
  });
});
