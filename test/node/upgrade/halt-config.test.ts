import { silentLogger } from "@chaind/core/logger";
import { afterEach, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { makeTestHome } from "../helpers/test-home.js";

describe("halt-height and halt-time from app.toml", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function runUntilHalt(tune: (c: { haltHeight: number; haltTime: number }) => void) {
    const h = makeTestHome({ tuneApp: tune, tuneNode: (c) => (c.consensus.timeoutCommitMs = 50) });
    cleanups.push(h.cleanup);
    const node = await ChainNode.open(
      { home: h.home, definition: (await import("../helpers/test-home.js")).TEST_DEFINITION },
      { logger: silentLogger },
    );
    cleanups.push(() => node.close());
    const reason = await node.run();
    return { reason, height: node.store.latestHeight };
  }

  it("stops cleanly after committing the halt height", async () => {
    const { reason, height } = await runUntilHalt((c) => {
      c.haltHeight = 4;
    });
    expect(reason).toEqual({ kind: "halt", reason: "halt height 4 reached" });
    expect(height).toBe(4);
  });

  it("stops cleanly after the first block at or past the halt time", async () => {
    // At least a second ahead, so some blocks come before it.
    const haltTime = Math.ceil(Date.now() / 1000) + 1;
    const { reason, height } = await runUntilHalt((c) => {
      c.haltTime = haltTime;
    });
    expect(reason).toEqual({ kind: "halt", reason: `halt time ${haltTime} reached` });
    expect(height).toBeGreaterThan(1);
  });
});
