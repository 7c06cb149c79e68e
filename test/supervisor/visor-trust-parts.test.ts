import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Level } from "level";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { type Logger, silentLogger } from "../../node/src/logging/logger.js";
import { sourceDiffers, sourceOf, writeSource } from "../../supervisor/src/artifact-source.js";
import { parseArtifactUrl } from "../../supervisor/src/artifact-url.js";
import { BatchFeed } from "../../supervisor/src/batch-feed.js";
import { genesisChainId } from "../../supervisor/src/genesis-chain-id.js";
import { decodeBlockStoreState, readHomeHeight } from "../../supervisor/src/home-height.js";
import { NodeApi } from "../../supervisor/src/node-api.js";
import { type NodeIdentity, readNodeIdentity } from "../../supervisor/src/node-identity.js";
import { VisorLayout } from "../../supervisor/src/visor-layout.js";
import { makeTestHome, TEST_DEFINITION } from "../node/helpers/test-home.js";
import { FakeNodeApi } from "./fake-node-api.js";
import { writeNodeIdentity } from "./visor-home.js";

/** A logger that keeps what it is told, so a test can see what visor said and how often. */
function recordingLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const log = (level: string) => (msg: string, ctx?: Record<string, unknown>) =>
    lines.push(`${level} ${msg} ${JSON.stringify(ctx ?? {})}`);
  const logger = {
    lines,
    error: log("error"),
    warn: log("warn"),
    info: log("info"),
    debug: log("debug"),
    child: () => logger,
  };
  return logger;
}

/** CometBFT's BlockStoreState{base = 1, height = 2} as protobuf (small values: one-byte varints suffice here). */
const blockStoreProto = (height: number) => {
  const v: number[] = [];
  for (let n = height; ; n = Math.floor(n / 128)) {
    v.push(n > 0x7f ? (n & 0x7f) | 0x80 : n);
    if (n <= 0x7f) break;
  }
  return Uint8Array.from([0x08, 0x01, 0x10, ...v]);
};

describe("the home's own height", () => {
  it("decodes CometBFT's blockStore record in Tendermint's JSON and CometBFT's protobuf, and refuses garbage", () => {
    const text = (s: string) => new TextEncoder().encode(s);
    expect(decodeBlockStoreState(text('{"base":"1","height":"322000"}'))).toBe(322000);
    expect(decodeBlockStoreState(text('{"base":1,"height":77}'))).toBe(77);
    expect(decodeBlockStoreState(text('{"Height":12}'))).toBe(12);
    expect(decodeBlockStoreState(blockStoreProto(322000))).toBe(322000);
    expect(decodeBlockStoreState(blockStoreProto(5))).toBe(5);
    expect(decodeBlockStoreState(text('{"height":"-3"}'))).toBeNull();
    expect(decodeBlockStoreState(text("{not json"))).toBeNull();
    // A length-delimited field running past the end, and a varint that never ends.
    expect(decodeBlockStoreState(Uint8Array.from([0x12, 0x09, 0x01]))).toBeNull();
    expect(decodeBlockStoreState(Uint8Array.from([0x10, 0xff, 0xff]))).toBeNull();
  });

  it("reads a CometBFT block store that another holder keeps open and locked, without changing it", async () => {
    const home = mkdtempSync(join(tmpdir(), "visor-height-"));
    const dir = join(home, "data", "blockstore.db");
    mkdirSync(join(home, "data"), { recursive: true });
    const db = new Level<string, Uint8Array>(dir, { valueEncoding: "view" });
    await db.open();
    try {
      for (let h = 1; h <= 300; h++) await db.put("blockStore", blockStoreProto(h));
      const before = readdirSync(dir).sort();
      expect(await readHomeHeight(home, join(home, "scratch"))).toEqual({
        height: 300,
        from: `CometBFT's block store (${dir})`,
      });
      expect(readdirSync(dir).sort()).toEqual(before);
      expect(existsSync(join(home, "scratch"))).toBe(false);
    } finally {
      await db.close();
      rmSync(home, { recursive: true, force: true });
    }
  });

  it("reads chaind's committed height while the node runs, and says why when a home has no store", async () => {
    const t = makeTestHome();
    const node = await ChainNode.open(
      { home: t.home, definition: TEST_DEFINITION },
      { logger: silentLogger },
    );
    try {
      for (let i = 0; i < 3; i++) await node.producer.produce();
      const got = await readHomeHeight(t.home, join(t.home, "scratch"));
      expect(got.height).toBe(node.store.latestHeight);
      expect(got.height).toBeGreaterThanOrEqual(3);
      expect(got.from).toMatch(/^chaind's state store/);
    } finally {
      await node.close();
      t.cleanup();
    }
    const empty = mkdtempSync(join(tmpdir(), "visor-height-"));
    await expect(readHomeHeight(empty, join(empty, "scratch"))).rejects.toMatchObject({
      code: "HOME_HEIGHT",
      message: expect.stringMatching(/no LevelDB block store in .*data \(blockstore\.db, application\.db\)/),
    });
    rmSync(empty, { recursive: true });
  });
});

describe("the home's identity", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-identity-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("finds the top-level chain_id of a genesis, past nested ones and chunk boundaries, without parsing it whole", () => {
    const path = join(root, "genesis.json");
    const filler = "x".repeat(200_000);
    writeFileSync(
      path,
      `{"app_state":{"chain_id":"inner","memo":"${filler} \\" { ["},"initial_height":"1",\n "chain_id" : "outer-\\"1\\"\\u00e9","tail":[]}`,
    );
    expect(genesisChainId(path)).toBe('outer-"1"é');
    writeFileSync(path, '{"genesis_time":"x","app_state":{"chain_id":"inner"}}');
    expect(() => genesisChainId(path)).toThrow(/has no chain_id/);
    writeFileSync(path, '{"chain_id":7}');
    expect(() => genesisChainId(path)).toThrow(/chain_id is not a string/);
  });

  it("accepts the node id of node_key.json (CometBFT's) and of priv_validator_key.json (chaind's)", () => {
    const home = join(root, "home");
    const own = writeNodeIdentity(home, "chain-a");
    expect(readNodeIdentity(home)).toEqual({
      chainId: "chain-a",
      nodeIds: [{ id: own.nodeId, file: "node_key.json" }],
    });
    const t = makeTestHome({ chainId: "chain-b" });
    try {
      const key = JSON.parse(readFileSync(join(t.home, "config", "priv_validator_key.json"), "utf8"));
      expect(readNodeIdentity(t.home)).toEqual({
        chainId: "chain-b",
        nodeIds: [{ id: key.address.toLowerCase(), file: "priv_validator_key.json" }],
      });
      rmSync(join(t.home, "config", "priv_validator_key.json"));
      expect(readNodeIdentity(t.home)).toMatchObject({
        problem: expect.stringMatching(/node id is unknown/),
      });
    } finally {
      t.cleanup();
    }
    rmSync(join(home, "config", "genesis.json"));
    expect(readNodeIdentity(home)).toMatchObject({ problem: expect.stringMatching(/chain id is unknown/) });
  });
});

describe("a home whose node cannot be told from an impostor", () => {
  it("asks no server at all, and says why once", async () => {
    const root = mkdtempSync(join(tmpdir(), "visor-nokeys-"));
    writeNodeIdentity(root);
    rmSync(join(root, "config", "node_key.json"));
    const node = await FakeNodeApi.start({ home: root, identity: { chainId: "visor-test-1", nodeId: "00" } });
    const logger = recordingLogger();
    const api = NodeApi.forHome(
      { home: root, grpcAddress: "", restAddress: "", rpcAddress: node.url },
      { logger },
    );
    try {
      for (let i = 0; i < 3; i++) {
        await expect(api.height()).rejects.toMatchObject({ code: "NODE_API" });
        await expect(api.currentPlan()).rejects.toThrow(/node id is unknown/);
      }
      expect(node.requests).toBe(0);
      expect(logger.lines.filter((l) => l.startsWith("warn "))).toHaveLength(1);
    } finally {
      api.close();
      await node.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("visor's record of where a fetched binary came from", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-source-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const a = `sha256:${"a".repeat(64)}`;
  const b = `sha256:${"b".repeat(64)}`;

  it("matches only the same artifact URL and checksum; keeps no credentials", () => {
    const url = `https://user:secret@releases.example/v2.tar.gz?X-Amz-Signature=tok&checksum=${a}`;
    const artifact = parseArtifactUrl(url, false);
    const info = `https://releases.example/plan.json?checksum=${b}`;
    writeSource(root, sourceOf({ name: "v2", height: 9, info }, artifact, "c".repeat(64)));
    const text = readFileSync(join(root, ".visor-source.json"), "utf8");
    expect(text).not.toMatch(/secret|X-Amz|tok/);
    expect(JSON.parse(text)).toMatchObject({
      plan: "v2",
      document: { checksum: b, shown: "https://releases.example/plan.json" },
      artifact: { checksum: a, shown: "https://releases.example/v2.tar.gz" },
    });
    expect(sourceDiffers(root, artifact)).toBeNull();
    // Fetched through another document (moved, or inline JSON) naming the same artifact: the same binary.
    writeSource(
      root,
      sourceOf({ name: "v2", height: 9, info: `{"binaries":{"any":"${url}"}}` }, artifact, "c"),
    );
    expect(sourceDiffers(root, parseArtifactUrl(url, false))).toBeNull();
    expect(sourceDiffers(root, parseArtifactUrl(url.replace(a, b), false))).toMatch(
      /its checksum is sha256:a+, upgrade-info.json names sha256:b+/,
    );
    expect(sourceDiffers(root, parseArtifactUrl(url.replace("v2.tar", "v2-fixed.tar"), false))).toMatch(
      /it came from https:\/\/releases.example\/v2.tar.gz, upgrade-info.json names https:\/\/releases.example\/v2-fixed.tar.gz/,
    );
    writeFileSync(join(root, ".visor-source.json"), "{");
    expect(sourceDiffers(root, artifact)).toMatch(/not recorded/);
  });

  it("sets a folder aside under a new name, keeping only the newest three per folder", () => {
    const layout = new VisorLayout({ home: root, name: "fake", disableRecase: false });
    const dir = layout.upgradeDir("v2");
    const aside: string[] = [];
    for (let i = 0; i < 5; i++) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "n"), String(i));
      aside.push(layout.setAside(dir));
    }
    expect(existsSync(dir)).toBe(false);
    const kept = readdirSync(layout.upgradesDir).sort();
    expect(kept).toHaveLength(3);
    expect(kept.map((f) => readFileSync(join(layout.upgradesDir, f, "n"), "utf8"))).toEqual(["2", "3", "4"]);
    expect(
      aside
        .slice(2)
        .map((p) => p.split("/").pop())
        .sort(),
    ).toEqual(kept);
  });
});

describe("batch upgrades: the highest trusted height says when to look, the home's own store decides", () => {
  let root: string;
  let node: FakeNodeApi;
  let api: NodeApi;
  let layout: VisorLayout;
  let store: Level<string, Uint8Array>;
  let reported = 0;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "visor-batch-"));
    const identity = writeNodeIdentity(root);
    node = await FakeNodeApi.start({ home: root, identity });
    node.height = () => reported;
    layout = new VisorLayout({ home: root, name: "fake", disableRecase: false });
    mkdirSync(layout.dataDir, { recursive: true });
    // The node's block store, held open as the running node would hold it.
    store = new Level<string, Uint8Array>(join(layout.dataDir, "blockstore.db"), { valueEncoding: "view" });
    await store.put("blockStore", blockStoreProto(10));
    api = new NodeApi(
      { addresses: { grpc: "", rest: "", rpc: node.url }, identity: readNodeIdentity(root) as NodeIdentity },
      { logger: silentLogger },
    );
  });
  afterAll(async () => {
    api.close();
    await store.close();
    await node.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("keeps the highest height a trusted node reported and ignores a lower one", async () => {
    writeFileSync(layout.batchFile, JSON.stringify([{ name: "v2", height: 100, info: "" }]));
    const feed = new BatchFeed({ layout, api, logger: silentLogger });
    for (const [answer, kept] of [
      [50, 50],
      [20, 50],
      [49, 50],
      [60, 60],
    ]) {
      reported = answer;
      await feed.tick();
      expect(feed.nodeHeight).toBe(kept);
    }
  });

  it("does not apply an entry a trusted node's height calls due until the home has reached it", async () => {
    writeFileSync(layout.batchFile, JSON.stringify([{ name: "v2", height: 100, info: "" }]));
    const logger = recordingLogger();
    const feed = new BatchFeed({ layout, api, logger });
    reported = 5_000;
    for (let i = 0; i < 3; i++) await feed.tick();
    expect(existsSync(layout.upgradeInfoFile)).toBe(false);
    const waits = logger.lines.filter((l) => l.includes("the home's own store is behind"));
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(/"node_height":5000,"home_height":10/);

    // The home reaches the height: the next check (after a short back-off) applies the entry.
    await store.put("blockStore", blockStoreProto(99));
    const deadline = Date.now() + 30_000;
    while (!existsSync(layout.upgradeInfoFile) && Date.now() < deadline) {
      await feed.tick();
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(JSON.parse(readFileSync(layout.upgradeInfoFile, "utf8"))).toMatchObject({
      name: "v2",
      height: 100,
    });
    expect(existsSync(layout.batchFile)).toBe(false);
    expect(logger.lines.some((l) => /batch upgrade due .*"node_height":5000,"home_height":99/.test(l))).toBe(
      true,
    );
  });
});
