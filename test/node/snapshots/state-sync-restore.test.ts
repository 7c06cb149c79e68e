import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import {
  type RequestApplySnapshotChunk,
  RequestApplySnapshotChunkSchema,
  RequestLoadSnapshotChunkSchema,
  RequestOfferSnapshotSchema,
  ResponseApplySnapshotChunk_Result,
  ResponseOfferSnapshot_Result,
} from "@chaind/proto/tendermint/abci/types_pb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AbciSnapshots } from "../../../node/src/abci/abci-snapshots.js";
import { writeSnapshot } from "../../../node/src/snapshots/snapshot-export.js";
import { latestSnapshotSource } from "../../../node/src/snapshots/snapshot-source.js";
import { SnapshotStore } from "../../../node/src/snapshots/snapshot-store.js";
import { encodeSnapshotStream } from "../../../node/src/snapshots/snapshot-stream.js";
import { StateSyncRestore } from "../../../node/src/snapshots/state-sync-restore.js";
import {
  bytes,
  changeSetOf,
  collect,
  hex,
  openTempStateStore,
  type TempStateStore,
  type Write,
} from "../store/temp-state-store.js";

const CHAIN = "sync-chain";
const MARK = bytes("genesis-record");

/** 400 keys of 40-odd bytes: about 20 KB of stream, cut into 4 KB chunks. */
const STATE: Write[] = Array.from({ length: 400 }, (_, i) => [
  i % 2 ? "bank" : "staking",
  `key-${String(i).padStart(4, "0")}`,
  `value-${i}-${"x".repeat(24)}`,
]);

describe("state sync over ABCI: a node's format-2 snapshots, restored chunk by chunk by another (real LevelDB)", () => {
  let serving: TempStateStore;
  let restoring: TempStateStore;
  let dir: string;
  let server: AbciSnapshots;
  let client: AbciSnapshots;
  let restoredCalls: number[];
  let appHash: Uint8Array;

  beforeEach(async () => {
    serving = await openTempStateStore();
    restoring = await openTempStateStore();
    dir = mkdtempSync(join(tmpdir(), "chaind-state-sync-"));
    await serving.store.commit(1, changeSetOf(STATE), []);
    await serving.store.commit(2, changeSetOf([["bank", "key-0001", "changed"]]), []);
    appHash = serving.store.latestAppHash;
    const store = new SnapshotStore(join(dir, "serving"));
    await writeSnapshot(await latestSnapshotSource(serving.store, CHAIN, false), store, 4096);
    const unused = new StateSyncRestore({
      state: serving.store,
      stagingDir: join(dir, "serving-staging"),
      chainId: CHAIN,
      logger: silentLogger,
      restored: async () => {},
      discardState: async () => {},
    });
    server = new AbciSnapshots(store, unused);
    // What the node keeps before its first block (the genesis record) must outlive a refused snapshot.
    await restoring.store.db.put(MARK, bytes("kept"));
    restoredCalls = [];
    client = new AbciSnapshots(
      new SnapshotStore(join(dir, "restoring")),
      new StateSyncRestore({
        state: restoring.store,
        stagingDir: join(dir, "restoring", ".state-sync"),
        chainId: CHAIN,
        logger: silentLogger,
        restored: async (h) => {
          restoredCalls.push(h);
        },
        discardState: async () => {
          await restoring.store.db.clear();
          await restoring.store.db.put(MARK, bytes("kept"));
        },
      }),
    );
  });
  afterEach(async () => {
    await serving.cleanup();
    await restoring.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const listed = () => server.list().snapshots;
  const offer = (trusted: Uint8Array, snapshot = listed()[0]) =>
    client.offer(create(RequestOfferSnapshotSchema, { snapshot, appHash: trusted })).result;
  const chunk = (index: number) =>
    server.loadChunk(create(RequestLoadSnapshotChunkSchema, { height: 2n, format: 2, chunk: index })).chunk;
  const apply = (index: number, bytes: Uint8Array, sender = "peer-a") =>
    client.apply(
      create(RequestApplySnapshotChunkSchema, { index, chunk: bytes, sender }) as RequestApplySnapshotChunk,
    );

  it("lists each format-2 snapshot with one SHA-256 per chunk, and restores it to the trusted app hash", async () => {
    const [s] = listed();
    expect(s).toMatchObject({ height: 2n, format: 2 });
    expect(s.chunks).toBeGreaterThan(3);
    expect(s.metadata.length).toBe(32 * s.chunks);
    expect(offer(appHash)).toBe(ResponseOfferSnapshot_Result.ACCEPT);
    for (let i = 0; i < s.chunks; i++)
      expect((await apply(i, chunk(i))).result).toBe(ResponseApplySnapshotChunk_Result.ACCEPT);

    const { store } = restoring;
    expect(store.latestHeight).toBe(2);
    expect(hex(store.latestAppHash)).toBe(hex(appHash));
    expect(await collect(store.iterate("bank"))).toEqual(await collect(serving.store.iterate("bank")));
    expect(restoredCalls).toEqual([2]);
    // Nothing is left behind in the staging folder.
    expect(client.list().snapshots).toEqual([]);
  });

  it("refuses a tampered chunk: its sender is rejected and the chunk fetched again; the honest copy goes in", async () => {
    const { chunks } = listed()[0];
    expect(offer(appHash)).toBe(ResponseOfferSnapshot_Result.ACCEPT);
    expect((await apply(0, chunk(0))).result).toBe(ResponseApplySnapshotChunk_Result.ACCEPT);
    const tampered = chunk(1).slice();
    tampered[100] ^= 1;
    const refused = await apply(1, tampered, "evil-peer");
    expect(refused).toMatchObject({
      result: ResponseApplySnapshotChunk_Result.RETRY,
      refetchChunks: [1],
      rejectSenders: ["evil-peer"],
    });
    expect(restoring.store.latestHeight).toBe(0);
    for (let i = 1; i < chunks; i++)
      expect((await apply(i, chunk(i))).result).toBe(ResponseApplySnapshotChunk_Result.ACCEPT);
    expect(hex(restoring.store.latestAppHash)).toBe(hex(appHash));
  });

  it("rejects a snapshot whose state is not the trusted one, and leaves the store as it was before the offer", async () => {
    const { chunks } = listed()[0];
    const other = new Uint8Array(32).fill(9);
    expect(offer(other)).toBe(ResponseOfferSnapshot_Result.ACCEPT);
    let last = ResponseApplySnapshotChunk_Result.ACCEPT;
    for (let i = 0; i < chunks; i++) last = (await apply(i, chunk(i))).result;
    expect(last).toBe(ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT);
    expect(restoring.store.latestHeight).toBe(0);
    const left: string[] = [];
    for await (const k of restoring.store.db.keys()) left.push(Buffer.from(k).toString());
    expect(left).toEqual(["genesis-record"]);
    expect(restoredCalls).toEqual([]);
    // The next offer, with the right trust, restores.
    expect(offer(appHash)).toBe(ResponseOfferSnapshot_Result.ACCEPT);
    for (let i = 0; i < chunks; i++) await apply(i, chunk(i));
    expect(restoring.store.latestHeight).toBe(2);
  });

  it("rejects a snapshot that claims the trusted app hash over another state: the imported entries hash otherwise", async () => {
    const forged = new SnapshotStore(join(dir, "forged"));
    async function* otherState() {
      for (const [store, key, value] of STATE.slice(1))
        yield { store, key: bytes(key as string), value: bytes(value as string) };
    }
    await forged.save(
      { height: 2, format: 2, chain_id: CHAIN, app_hash: hex(appHash).toUpperCase() },
      encodeSnapshotStream(
        { header: { chain_id: CHAIN, height: 2, app_hash: hex(appHash).toUpperCase() } },
        otherState(),
      ),
      4096,
    );
    const liar = new AbciSnapshots(forged, {} as StateSyncRestore);
    const [s] = liar.list().snapshots;
    expect(offer(appHash, s)).toBe(ResponseOfferSnapshot_Result.ACCEPT);
    let last = ResponseApplySnapshotChunk_Result.ACCEPT;
    for (let i = 0; i < s.chunks; i++) {
      const bytes = liar.loadChunk(
        create(RequestLoadSnapshotChunkSchema, { height: 2n, format: 2, chunk: i }),
      ).chunk;
      last = (await apply(i, bytes)).result;
    }
    expect(last).toBe(ResponseApplySnapshotChunk_Result.REJECT_SNAPSHOT);
    expect(restoring.store.latestHeight).toBe(0);
    expect(restoredCalls).toEqual([]);
  });

  it("refuses offers it cannot take: another format, malformed metadata, a node that already has state", async () => {
    const s = listed()[0];
    expect(offer(appHash, { ...s, format: 1 })).toBe(ResponseOfferSnapshot_Result.REJECT_FORMAT);
    expect(offer(appHash, { ...s, metadata: s.metadata.subarray(1) })).toBe(
      ResponseOfferSnapshot_Result.REJECT,
    );
    expect(offer(appHash, { ...s, chunks: 1_000_000, metadata: new Uint8Array(32) })).toBe(
      ResponseOfferSnapshot_Result.REJECT,
    );
    expect(offer(appHash, { ...s, height: 0n })).toBe(ResponseOfferSnapshot_Result.REJECT);
    // A chunk with no accepted snapshot ends state sync rather than being taken.
    expect((await apply(0, chunk(0))).result).toBe(ResponseApplySnapshotChunk_Result.ABORT);
    await restoring.store.commit(1, changeSetOf([["bank", "a", "1"]]), []);
    expect(offer(appHash)).toBe(ResponseOfferSnapshot_Result.ABORT);
  });

  it("serves no chunk it does not have: an unknown height or format, an index past the last chunk", () => {
    const none = (height: bigint, format: number, index: number) =>
      server.loadChunk(create(RequestLoadSnapshotChunkSchema, { height, format, chunk: index })).chunk.length;
    expect(none(3n, 2, 0)).toBe(0);
    expect(none(2n, 1, 0)).toBe(0);
    expect(none(2n, 2, listed()[0].chunks)).toBe(0);
    expect(none(0n, 2, 0)).toBe(0);
    expect(chunk(0).length).toBe(4096);
  });
});
