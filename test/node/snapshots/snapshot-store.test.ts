import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readAppConfig } from "../../../node/src/config/app-config.js";
import { SnapshotStore } from "../../../node/src/snapshots/snapshot-store.js";
import {
  decodeSnapshotStream,
  encodeSnapshotStream,
  type SnapshotBootstrap,
  type SnapshotItem,
  type SnapshotRecord,
} from "../../../node/src/snapshots/snapshot-stream.js";

const bootstrap: SnapshotBootstrap = {
  header: { chain_id: "c", height: 7, app_hash: "AB".repeat(32) },
  lastBlock: {
    block: Uint8Array.of(1, 2, 3),
    blockMeta: Uint8Array.of(4),
    blockResults: new TextEncoder().encode("{}"),
  },
};

/** 300 items of 40-odd bytes each: about 13 KB of stream. */
async function* items(): AsyncIterable<SnapshotItem> {
  for (let i = 0; i < 300; i++)
    yield {
      store: i < 150 ? "bank" : "staking",
      key: Uint8Array.of(i >> 8, i & 0xff),
      value: new Uint8Array(24).fill(i),
    };
}

async function collect(pieces: AsyncIterable<Uint8Array>): Promise<SnapshotRecord[]> {
  const out: SnapshotRecord[] = [];
  for await (const r of decodeSnapshotStream(1, pieces)) out.push(r);
  return out;
}

async function* of(...pieces: Uint8Array[]): AsyncIterable<Uint8Array> {
  yield* pieces;
}

describe("snapshot store and format-1 stream", () => {
  let dir: string;
  let store: SnapshotStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "chaind-snapshots-"));
    store = new SnapshotStore(join(dir, "snapshots"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const save = (height: number) =>
    store.save(
      { height, format: 1, chain_id: "c", app_hash: "AB".repeat(32) },
      encodeSnapshotStream({ ...bootstrap, header: { ...bootstrap.header, height } }, items()),
      4096,
    );

  it("splits the stream into chunks with their hashes, and reads back every record across chunk borders", async () => {
    const meta = await save(7);
    expect(meta.chunks).toBeGreaterThan(3);
    for (let i = 0; i < meta.chunks; i++) {
      const bytes = readFileSync(store.chunkPath(7, 1, i));
      if (i < meta.chunks - 1) expect(bytes.length).toBe(4096);
      expect(createHash("sha256").update(bytes).digest("hex")).toBe(meta.chunk_hashes[i]);
    }
    expect(store.list()).toEqual([meta]);
    const records = await collect(store.verifiedChunks(meta));
    expect(records[0]).toMatchObject({ kind: "bootstrap", bootstrap: { header: { height: 7 } } });
    const read = records.slice(1) as Extract<SnapshotRecord, { kind: "item" }>[];
    expect(read).toHaveLength(300);
    expect(read[299]).toMatchObject({ store: "staking", key: Uint8Array.of(1, 43) });
    expect(read[299].value).toEqual(new Uint8Array(24).fill(299 & 0xff));
  });

  it("refuses a corrupted or missing chunk by its number, and a snapshot that already exists", async () => {
    const meta = await save(7);
    const file = store.chunkPath(7, 1, 2);
    const bytes = readFileSync(file);
    bytes[10] ^= 0xff;
    writeFileSync(file, bytes);
    await expect(store.verify(meta)).rejects.toThrow(
      /^chunk 2 of snapshot 7\/1 is corrupted: sha256 [0-9a-f]{64}, expected/,
    );
    rmSync(file);
    await expect(store.verify(meta)).rejects.toThrow(/^chunk 2 of snapshot 7\/1 is missing/);
    await expect(save(7)).rejects.toThrow("snapshot 7/1 already exists");
  });

  it("keeps the newest heights when pruning, and deletes one snapshot", async () => {
    for (const h of [2, 4, 6, 8]) await save(h);
    expect(store.list().map((m) => m.height)).toEqual([8, 6, 4, 2]);
    expect(store.prune(2).map((m) => m.height)).toEqual([4, 2]);
    expect(store.list().map((m) => m.height)).toEqual([8, 6]);
    store.delete(6, 1);
    expect(store.list().map((m) => m.height)).toEqual([8]);
    expect(() => store.delete(6, 1)).toThrow(/^snapshot 6\/1 not found/);
    expect(store.prune(0)).toEqual([]);
  });

  it("refuses a stream cut short, one with bytes after its end, and one of another format", async () => {
    const pieces: Uint8Array[] = [];
    for await (const p of encodeSnapshotStream(bootstrap, items())) pieces.push(p);
    const whole = Buffer.concat(pieces);
    await expect(collect(of(whole.subarray(0, whole.length - 1)))).rejects.toThrow(
      "malformed snapshot stream: the stream ends before its end mark",
    );
    await expect(collect(of(whole, Uint8Array.of(0)))).rejects.toThrow("bytes after the end mark");
    await expect(collect(of(new TextEncoder().encode("something else entirely")))).rejects.toThrow(
      "not a format 1 snapshot",
    );
    // A field that claims more bytes than any record holds is refused before they pile up.
    const huge = Buffer.concat([
      whole.subarray(0, "chaind-snapshot/1\n".length),
      Buffer.from([1, 0xff, 0xff, 0xff, 0xff]),
    ]);
    await expect(collect(of(huge))).rejects.toThrow(
      "a field of 4294967295 bytes (at most 134217728 are taken)",
    );
    // Format 2 (CometBFT's: no last block) is read by its own reader only.
    const stateOnly: Uint8Array[] = [];
    for await (const p of encodeSnapshotStream({ header: bootstrap.header }, items())) stateOnly.push(p);
    await expect(collect(of(...stateOnly))).rejects.toThrow("not a format 1 snapshot");
    const records: SnapshotRecord[] = [];
    for await (const r of decodeSnapshotStream(2, of(...stateOnly))) records.push(r);
    expect(records[0]).toEqual({
      kind: "bootstrap",
      bootstrap: { header: bootstrap.header, lastBlock: undefined },
    });
    expect(records).toHaveLength(301);
  });

  it("reads state-sync snapshot-interval and snapshot-keep-recent from app.toml, Cosmos's defaults when absent", () => {
    const file = join(dir, "app.toml");
    writeFileSync(file, "[state-sync]\nsnapshot-interval = 100\nsnapshot-keep-recent = 5\n");
    expect(readAppConfig(file).stateSync).toEqual({ snapshotInterval: 100, snapshotKeepRecent: 5 });
    writeFileSync(file, "");
    expect(readAppConfig(file).stateSync).toEqual({ snapshotInterval: 0, snapshotKeepRecent: 2 });
    writeFileSync(file, "[state-sync]\nsnapshot-interval = -1\n");
    expect(() => readAppConfig(file)).toThrow(/snapshot-interval/);
  });
});
