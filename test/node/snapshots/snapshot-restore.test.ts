import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { BlockMetaSchema } from "@chaind/proto/tendermint/types/types_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { encodeBlockResults } from "../../../node/src/consensus/block-results.js";
import { BlockStore } from "../../../node/src/consensus/block-store.js";
import { BlockStoreKeys } from "../../../node/src/consensus/block-store-keys.js";
import { writeSnapshot } from "../../../node/src/snapshots/snapshot-export.js";
import { restoreSnapshot } from "../../../node/src/snapshots/snapshot-restore.js";
import { latestSnapshotSource, retainedSnapshotSource } from "../../../node/src/snapshots/snapshot-source.js";
import { SnapshotStore } from "../../../node/src/snapshots/snapshot-store.js";
import type { BatchOp } from "../../../node/src/store/state-store.js";
import {
  bytes,
  changeSetOf,
  collect,
  hex,
  openTempStateStore,
  type TempStateStore,
  type Write,
} from "../store/temp-state-store.js";

const VALIDATOR = new Uint8Array(20).fill(7);
const target = { chainId: "snap-chain", validatorAddress: VALIDATOR };

/** What the block producer stores for a block: the block (whose header holds the previous app hash), its meta and results. */
function blockOps(height: number, prevAppHash: Uint8Array): BatchOp[] {
  const header = {
    height: BigInt(height),
    appHash: prevAppHash,
    proposerAddress: VALIDATOR,
    chainId: target.chainId,
  };
  const block = create(BlockSchema, { header });
  const meta = create(BlockMetaSchema, { header, blockId: { hash: sha256(Uint8Array.of(height)) } });
  return [
    { type: "put", key: BlockStoreKeys.blocks.encode(height), value: toBinary(BlockSchema, block) },
    { type: "put", key: BlockStoreKeys.blockMetas.encode(height), value: toBinary(BlockMetaSchema, meta) },
    {
      type: "put",
      key: BlockStoreKeys.results.encode(height),
      value: encodeBlockResults({ height, txResults: [], events: [] }),
    },
  ];
}

/** Commits the next height as the producer would: its writes and its block records in one batch. */
async function commitBlock(t: TempStateStore, writes: Write[]): Promise<Uint8Array> {
  const { store } = t;
  const h = store.latestHeight + 1;
  return store.commit(h, changeSetOf(writes), blockOps(h, store.latestAppHash));
}

const H1: Write[] = [
  ["bank", "a", "1"],
  ["bank", "b", "2"],
  ["staking", "x", "9"],
];
const H2: Write[] = [
  ["bank", "a", "3"],
  ["bank", "b", null],
];
const H3: Write[] = [
  ["bank", "a", "5"],
  ["bank", "c", "7"],
];

describe("snapshot source, export and restore (in process, real LevelDB)", () => {
  let original: TempStateStore;
  let fresh: TempStateStore;
  let dir: string;
  let snapshots: SnapshotStore;
  beforeEach(async () => {
    // Keeps 2 states, pruning every block: a height snapshotted while blocks go on is soon pruned.
    original = await openTempStateStore({ strategy: "custom", keepRecent: 2, interval: 1 });
    fresh = await openTempStateStore({ strategy: "custom", keepRecent: 2, interval: 1 });
    dir = mkdtempSync(join(tmpdir(), "chaind-snapshot-restore-"));
    snapshots = new SnapshotStore(join(dir, "snapshots"));
  });
  afterEach(async () => {
    await original.cleanup();
    await fresh.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it("a snapshot of the latest height holds that height's state however many blocks commit and prune meanwhile", async () => {
    await commitBlock(original, H1);
    const at2 = await commitBlock(original, H2);
    const source = latestSnapshotSource(original.store, target.chainId);
    const at3 = await commitBlock(original, H3);
    await commitBlock(original, [["bank", "a", "6"]]);
    await commitBlock(original, [["bank", "a", "8"]]);
    expect(original.store.earliestHeight).toBe(4);
    const meta = await writeSnapshot(await source, snapshots);
    expect(meta).toMatchObject({
      height: 2,
      format: 1,
      chunks: 1,
      chain_id: target.chainId,
      app_hash: hex(at2).toUpperCase(),
    });

    const restored = await restoreSnapshot(fresh.store, snapshots, meta, target, trusting(at2));
    expect(restored.items).toBe(2);
    const { store } = fresh;
    expect(store.latestHeight).toBe(2);
    expect(hex(store.latestAppHash)).toBe(hex(at2));
    expect(await collect(store.iterate("bank"))).toEqual([[hex(bytes("a")), "3"]]);
    expect(await collect(store.iterate("staking", { height: 2 }))).toEqual([[hex(bytes("x")), "9"]]);
    // The block store starts at the snapshot's block, and the next block can follow it.
    const blocks = await BlockStore.open(store);
    expect([blocks.base, blocks.height, blocks.unappliedHeight]).toEqual([2, 2, undefined]);
    expect((await blocks.results(2))?.height).toBe(2);
    // The same next block gives the same app hash as on the original chain: the chain goes on from here.
    expect(hex(await commitBlock(fresh, H3))).toBe(hex(at3));
  });

  it("a snapshot of a retained height below the latest is the same snapshot as one taken at that height", async () => {
    await commitBlock(original, H1);
    await commitBlock(original, H2);
    const atTwo = await writeSnapshot(await latestSnapshotSource(original.store, target.chainId), snapshots);
    await commitBlock(original, H3);
    snapshots.delete(2, 1);
    const later = await writeSnapshot(
      await retainedSnapshotSource(original.store, target.chainId, 2),
      snapshots,
    );
    expect(later).toEqual(atTwo);
    await expect(retainedSnapshotSource(original.store, target.chainId, 9)).rejects.toThrow(
      /^cannot snapshot height 9: cannot load state at height 9; it is in the future/,
    );
  });

  it("refuses another chain, another validator and a home that holds a chain, and leaves the fresh store empty", async () => {
    const trust = trusting(await commitBlock(original, H1));
    const meta = await writeSnapshot(await latestSnapshotSource(original.store, target.chainId), snapshots);
    await expect(
      restoreSnapshot(fresh.store, snapshots, meta, { ...target, chainId: "other" }, trust),
    ).rejects.toThrow("snapshot 1/1 is of chain snap-chain, but this home's genesis is of chain other");
    await expect(
      restoreSnapshot(
        fresh.store,
        snapshots,
        meta,
        { ...target, validatorAddress: new Uint8Array(20) },
        trust,
      ),
    ).rejects.toThrow(
      /^snapshot 1\/1 was produced by validator 07070707.*, but this home's priv_validator_key.json/,
    );
    expect(await fresh.store.isEmpty()).toBe(true);
    await expect(restoreSnapshot(original.store, snapshots, meta, target, trust)).rejects.toThrow(
      /it already holds a chain/,
    );
    await restoreSnapshot(fresh.store, snapshots, meta, target, trust);
    expect(fresh.store.latestHeight).toBe(1);
  });

  it("refuses a snapshot whose claimed app hash is not the trusted one, naming both", async () => {
    const real = await commitBlock(original, H1);
    const meta = await writeSnapshot(await latestSnapshotSource(original.store, target.chainId), snapshots);
    const other = new Uint8Array(32).fill(0xab);
    await expect(
      restoreSnapshot(fresh.store, snapshots, meta, target, { appHash: other, source: "the operator" }),
    ).rejects.toThrow(
      `snapshot 1/1 claims app hash ${hex(real).toUpperCase()} at height 1, but the operator says it is ${"AB".repeat(32)}`,
    );
    expect(await fresh.store.isEmpty()).toBe(true);
  });

  it("refuses a snapshot whose state was changed under the real app hash (chunk hashes recomputed), leaving the home empty", async () => {
    const real = await commitBlock(original, H1);
    const meta = await writeSnapshot(await latestSnapshotSource(original.store, target.chainId), snapshots);
    // A balance raised: bank "b" from "2" to "9", every hash of the snapshot made anew, the app hash kept.
    const chunk = join(dir, "snapshots", "1", "1", "0");
    const bytesOf = readFileSync(chunk);
    const at = bytesOf.indexOf(Buffer.from([0, 0, 0, 1, 0x62, 0, 0, 0, 1, 0x32]));
    expect(at).toBeGreaterThan(0);
    bytesOf[at + 9] = 0x39;
    writeFileSync(chunk, bytesOf);
    const digest = createHash("sha256").update(bytesOf).digest("hex");
    const forged = { ...meta, hash: digest, chunk_hashes: [digest] };
    writeFileSync(join(dir, "snapshots", "1", "1", "metadata.json"), JSON.stringify(forged));
    await expect(restoreSnapshot(fresh.store, snapshots, forged, target, trusting(real))).rejects.toThrow(
      new RegExp(
        `^snapshot 1/1 is not the state it claims: the state imported hashes to app hash [0-9A-F]{64}, not the ${hex(real).toUpperCase()} it was to have at height 1`,
      ),
    );
    expect(await fresh.store.isEmpty()).toBe(true);
  });
});

/** Trust in the app hash a test's own chain computed. */
function trusting(appHash: Uint8Array) {
  return { appHash, source: "the test's chain" };
}
