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
import { BinaryWriter } from "@bufbuild/protobuf/wire";
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
import { homeIdentity, readNodeIdentity } from "../../supervisor/src/node-identity.js";
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

/** CometBFT's BlockStoreState{base = 1, height = 2} as protobuf. */
const blockStoreProto = (height: number) =>
  new BinaryWriter().uint32(0x08).uint32(1).uint32(0x10).uint64(height).finish();

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

describe("the home's identity read again while it is unusable", () => {
  it("trusts the node once its node_key.json appears (CometBFT writes it at first start), then keeps it", async () => {
    const root = mkdtempSync(join(tmpdir(), "visor-latekey-"));
    const identity = writeNodeIdentity(root);
    const keyFile = join(root, "config", "node_key.json");
    const key = readFileSync(keyFile);
    rmSync(keyFile);
    const node = await FakeNodeApi.start({ home: root, identity });
    node.height = () => 42;
    const logger = recordingLogger();
    const api = NodeApi.forHome(
      { home: root, grpcAddress: "", restAddress: "", rpcAddress: node.url },
      { logger },
    );
    try {
      await expect(api.height()).rejects.toThrow(/node id is unknown/);
      // Created, not yet written: still unusable.
      writeFileSync(keyFile, "");
      await expect(api.height()).rejects.toThrow(/node id is unknown/);
      expect(node.requests).toBe(0);
      writeFileSync(keyFile, key);
      expect(await api.height()).toBe(42);
      expect(
        logger.lines.filter((l) => l.startsWith("info the home's identity is readable now")),
      ).toHaveLength(1);
      // Known good, it is not read again before every question.
      rmSync(keyFile);
      expect(await api.height()).toBe(42);
    } finally {
      api.close();
      await node.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe("a server that takes the node's port after the node was verified there", () => {
  /** The first question after a server was replaced may meet the old one's closed keep-alive connection. */
  async function answerOrError<T>(question: () => Promise<T>): Promise<T | Error> {
    for (let tries = 1; ; tries++) {
      const got = await question().catch((e: Error) => e);
      if (!(got instanceof Error) || !/unreachable|cannot reach/.test(got.message) || tries === 3) return got;
    }
  }

  for (const transport of ["rpc", "rest"] as const)
    it(`is not believed, and the node is again once it is back (${transport})`, async () => {
      const root = mkdtempSync(join(tmpdir(), "visor-swap-"));
      const identity = writeNodeIdentity(root);
      const servers: FakeNodeApi[] = [];
      const serve = async (who: typeof identity, height: number, port?: number) => {
        const s = await FakeNodeApi.start({ home: root, identity: who, port });
        s.height = () => height;
        s.plan = { name: "v2", height: 5, info: "{}" };
        servers.push(s);
        return s;
      };
      const node = await serve(identity, 42);
      const port = node.port;
      const logger = recordingLogger();
      const addresses = { grpc: "", rest: "", rpc: "", [transport]: node.url };
      const api = new NodeApi({ addresses, identity: homeIdentity(root) }, { logger });
      try {
        expect(await api.height()).toBe(42);
        expect((await api.currentPlan())?.name).toBe("v2");
        await node.close();
        // Another local user's server on the same port: it knows the chain id (public), not the node's key.
        const impostor = await serve({ ...identity, nodeId: "ab".repeat(20) }, 1_000_000, port);
        expect(await answerOrError(() => api.height())).toMatchObject({
          code: "NODE_API",
          message: expect.stringMatching(/answers node id "(ab){20}"/),
        });
        expect(await answerOrError(() => api.currentPlan())).toMatchObject({ code: "NODE_API" });
        // Asked only who it is, never its height or its plan.
        expect(impostor.requests).toBe(2);
        expect(
          logger.lines.filter((l) => l.includes("not trusting the server on the node's port")),
        ).toHaveLength(1);
        await impostor.close();
        await serve(identity, 43, port);
        expect(await answerOrError(() => api.height())).toBe(43);
        expect(logger.lines.some((l) => l.includes("the node's own server answers again"))).toBe(true);
      } finally {
        api.close();
        for (const s of servers) await s.close();
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
    api = new NodeApi(
      { addresses: { grpc: "", rest: "", rpc: node.url }, identity: homeIdentity(root) },
      { logger: silentLogger },
    );
  });
  beforeEach(async () => {
    rmSync(layout.upgradeInfoFile, { force: true });
    writeFileSync(layout.batchFile, JSON.stringify([{ name: "v2", height: 100, info: "" }]));
    await store.put("blockStore", blockStoreProto(10));
  });
  afterAll(async () => {
    api.close();
    await store.close();
    await node.close();
    rmSync(root, { recursive: true, force: true });
  });

  it("keeps the highest height a trusted node reported: a lower one later does not undo it", async () => {
    const logger = recordingLogger();
    const feed = new BatchFeed({ layout, api, logger });
    // 50 is not due, 99 is (the home is behind then), 20 comes after 99.
    for (const answer of [50, 99, 20]) {
      reported = answer;
      await feed.tick();
      expect(existsSync(layout.upgradeInfoFile)).toBe(false);
    }
    await store.put("blockStore", blockStoreProto(99));
    await feed.tick();
    expect(JSON.parse(readFileSync(layout.upgradeInfoFile, "utf8"))).toMatchObject({
      name: "v2",
      height: 100,
    });
    expect(logger.lines.some((l) => /batch upgrade due .*"node_height":99,"home_height":99/.test(l))).toBe(
      true,
    );
  });

  it("does not look at the home before a trusted node's height says the entry is due", async () => {
    await store.put("blockStore", blockStoreProto(99));
    const feed = new BatchFeed({ layout, api, logger: silentLogger });
    reported = 50;
    for (let i = 0; i < 3; i++) await feed.tick();
    expect(existsSync(layout.upgradeInfoFile)).toBe(false);
    expect(existsSync(layout.batchFile)).toBe(true);
  });

  it("waits while the home is behind, and writes the entry at the first tick after the home reaches the height", async () => {
    const logger = recordingLogger();
    const feed = new BatchFeed({ layout, api, logger });
    // A fake height long before the real one, and many ticks behind: no back-off builds up meanwhile.
    reported = 5_000;
    for (let i = 0; i < 8; i++) {
      await feed.tick();
      expect(existsSync(layout.upgradeInfoFile)).toBe(false);
    }
    const waits = logger.lines.filter((l) => l.includes("the home's own store is behind"));
    expect(waits).toHaveLength(1);
    expect(waits[0]).toMatch(/"node_height":5000,"home_height":10/);

    await store.put("blockStore", blockStoreProto(99));
    await feed.tick();
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
