import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { readGenesisRecord } from "../../../node/src/chain/genesis-record.js";
import { validateGenesisShape } from "../../../node/src/config/genesis.js";
import { HomeLayout } from "../../../node/src/config/home-layout.js";
import { PRUNING_NOTHING } from "../../../node/src/store/pruning.js";
import { StateStore } from "../../../node/src/store/state-store.js";
import { GENESIS_KEY } from "../../../node/src/store/state-store-keys.js";
import { makeTestHome, TEST_DEFINITION } from "../helpers/test-home.js";

const open = (home: string) =>
  ChainNode.open({ home, definition: TEST_DEFINITION }, { logger: silentLogger });

describe("genesis once the chain has begun", () => {
  let h: ReturnType<typeof makeTestHome>;
  let genesisJson: string;
  let original: string;
  beforeAll(async () => {
    h = makeTestHome();
    genesisJson = join(h.home, "config", "genesis.json");
    original = readFileSync(genesisJson, "utf8");
    const node = await open(h.home);
    await node.producer.produce();
    await node.close();
  });
  afterAll(() => h.cleanup());

  it("InitChain keeps genesis.json's header (no app state) in the store", async () => {
    const store = await StateStore.open(
      { dir: new HomeLayout(h.home).dbDir, pruning: PRUNING_NOTHING },
      { logger: silentLogger },
    );
    try {
      // The header as chaind holds it (the file is in CometBFT's shape; either is read).
      const { app_state: _, ...header } = validateGenesisShape(JSON.parse(original), "genesis.json");
      expect(await readGenesisRecord(store)).toMatchObject({ ...header, chain_id: h.chainId });
      expect(await readGenesisRecord(store)).not.toHaveProperty("app_state");
    } finally {
      await store.close();
    }
  });

  it("a restart reads the kept header, not genesis.json, and still answers the genesis header", async () => {
    writeFileSync(genesisJson, "not json: a restart must not read this");
    try {
      const node = await open(h.home);
      try {
        expect(node.chainId).toBe(h.chainId);
        expect(node.genesis.genesis_time).toBe(JSON.parse(original).genesis_time);
        await node.producer.produce();
        expect(node.store.latestHeight).toBe(2);
      } finally {
        await node.close();
      }
    } finally {
      writeFileSync(genesisJson, original);
    }
  });

  it("a home whose chain began before the header was kept reads genesis.json once and keeps it", async () => {
    const store = await StateStore.open(
      { dir: new HomeLayout(h.home).dbDir, pruning: PRUNING_NOTHING },
      { logger: silentLogger },
    );
    await store.db.del(GENESIS_KEY);
    await store.close();
    const node = await open(h.home);
    await node.close();
    writeFileSync(genesisJson, "not json");
    try {
      const again = await open(h.home);
      expect(again.chainId).toBe(h.chainId);
      await again.close();
    } finally {
      writeFileSync(genesisJson, original);
    }
  });
});
