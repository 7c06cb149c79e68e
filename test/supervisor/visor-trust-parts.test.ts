import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { BinaryWriter } from "@bufbuild/protobuf/wire";
import { parseChecksummedUrl } from "@chaind/core/checksummed-url";
import { decodeBlockStoreState } from "@chaind/core/comet-block-store-state";
import { type Logger, silentLogger } from "@chaind/core/logger";
import { ChainNode } from "chaind/chain/chain-node";
import { Level } from "level";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { sourceDiffers, sourceOf, writeSource } from "../../supervisor/src/artifacts/artifact-source.js";
import { ensureUpgradeBinary } from "../../supervisor/src/artifacts/upgrade-binary.js";
import { addUpgradeCommand } from "../../supervisor/src/cli/add-upgrade-command.js";
import { loadVisorConfig } from "../../supervisor/src/config/visor-config.js";
import { genesisChainId } from "../../supervisor/src/daemon/genesis-chain-id.js";
import { readHomeHeight } from "../../supervisor/src/daemon/home-height.js";
import { NodeApi } from "../../supervisor/src/daemon/node-api.js";
import { homeIdentity, readNodeIdentity } from "../../supervisor/src/daemon/node-identity.js";
import { VisorError } from "../../supervisor/src/errors/visor-error.js";
import { KEEP_SET_ASIDE, VisorLayout } from "../../supervisor/src/home/visor-layout.js";
import { BatchFeed } from "../../supervisor/src/upgrade/batch-feed.js";
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
      // Two looks at once through the same scratch folder (visor's polling probe and the one that looks when the
      // daemon exits) both answer: neither clears the other's copy.
      const both = await Promise.all(
        Array.from({ length: 4 }, () => readHomeHeight(home, join(home, "scratch"))),
      );
      expect(both.map((b) => b.height)).toEqual([300, 300, 300, 300]);
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
      // A testnet home has both files (chaind reports node_key.json's id); a home made before node_key.json
      // existed still answers with the validator key's.
      const key = JSON.parse(readFileSync(join(t.home, "config", "priv_validator_key.json"), "utf8"));
      const identity = readNodeIdentity(t.home);
      expect(identity).toMatchObject({ chainId: "chain-b" });
      expect("nodeIds" in identity && identity.nodeIds.map((n) => n.file)).toEqual([
        "node_key.json",
        "priv_validator_key.json",
      ]);
      rmSync(join(t.home, "config", "node_key.json"));
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
    const artifact = parseChecksummedUrl(url, false);
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
    expect(sourceDiffers(root, parseChecksummedUrl(url, false))).toBeNull();
    expect(sourceDiffers(root, parseChecksummedUrl(url.replace(a, b), false))).toMatch(
      /its checksum is sha256:a+, upgrade-info.json names sha256:b+/,
    );
    expect(sourceDiffers(root, parseChecksummedUrl(url.replace("v2.tar", "v2-fixed.tar"), false))).toMatch(
      /it came from https:\/\/releases.example\/v2.tar.gz, upgrade-info.json names https:\/\/releases.example\/v2-fixed.tar.gz/,
    );
    writeFileSync(join(root, ".visor-source.json"), "{");
    expect(sourceDiffers(root, artifact)).toMatch(/not recorded/);
  });

  it("is 0600, and names the artifact by its URL without user information: a rotated password is the same artifact", () => {
    const url = (password: string) =>
      `https://visor:${password}@releases.example/v2.tar.gz?X-Amz-Signature=tok&checksum=${a}`;
    const fetched = parseChecksummedUrl(url("weak-pw-1"), false);
    writeSource(root, sourceOf({ name: "v2", height: 9, info: url("weak-pw-1") }, fetched, "c".repeat(64)));
    const file = join(root, ".visor-source.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const record = JSON.parse(readFileSync(file, "utf8"));
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    // The digest of the URL with the password would let anyone who reads the record try passwords offline.
    expect(record.artifact.url_sha256).not.toBe(sha(fetched.url));
    expect(record.artifact.url_sha256).toBe(sha(fetched.url.replace("visor:weak-pw-1@", "")));
    expect(sourceDiffers(root, parseChecksummedUrl(url("rotated-pw-2"), false))).toBeNull();
    // A record written again over a 0644 one (an earlier visor's) is 0600 too.
    writeFileSync(file, "{}", { mode: 0o644 });
    writeSource(root, sourceOf({ name: "v2", height: 9, info: "" }, fetched, "c".repeat(64)));
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });
});

describe("setting folders aside", () => {
  let root: string;
  let layout: VisorLayout;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-aside-"));
    layout = new VisorLayout({ home: root, name: "fake", disableRecase: false });
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  /** Every set-aside folder of upgrades/ and prefetch/, as `<folder>/<name>`, with the `n` it held. */
  const setAside = () =>
    ["upgrades", "prefetch"].flatMap((folder) => {
      const dir = join(root, "cosmovisor", folder);
      return existsSync(dir)
        ? readdirSync(dir)
            .filter((f) => f.includes(".replaced-"))
            .map((f) => `${folder}/${f.split(".replaced-")[0]}=${readFileSync(join(dir, f, "n"), "utf8")}`)
        : [];
    });

  it("keeps the newest three in all, across plan names and both folders (a server renaming its plan cannot fill the disk)", () => {
    expect(KEEP_SET_ASIDE).toBe(3);
    for (let i = 0; i < 12; i++) {
      const dir = i % 2 ? layout.prefetchDirOf(`p${i}`) : layout.upgradeDir(`p${i}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "n"), String(i));
      expect(layout.setAside(dir, "test")).toMatch(new RegExp(`/p${i}\\.replaced-[0-9T-]+Z$`));
    }
    expect(setAside().sort()).toEqual(["prefetch/p11=11", "prefetch/p9=9", "upgrades/p10=10"]);
    // One plan set aside again and again, in the same millisecond or not: still three in all, the newest.
    const dir = layout.upgradeDir("v2");
    for (let i = 0; i < 5; i++) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, "n"), `v2-${i}`);
      layout.setAside(dir, "test");
    }
    expect(setAside().sort()).toEqual(["upgrades/v2=v2-2", "upgrades/v2=v2-3", "upgrades/v2=v2-4"]);
  });

  it("never sets aside the folder current points at, and never prunes it", () => {
    const dir = layout.upgradeDir("v2");
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(join(dir, "bin", "fake"), "v2");
    layout.switchTo(dir);
    const refused = (() => {
      try {
        layout.setAside(dir, "upgrade-info.json names another artifact");
      } catch (e) {
        return e as VisorError;
      }
      throw new Error("expected a refusal");
    })();
    expect(refused).toBeInstanceOf(VisorError);
    expect(refused.message).toMatch(
      /refusing to set aside \S+\/upgrades\/v2: current points at it, and the node would run whatever took its place \(upgrade-info.json names another artifact\); to replace that binary on purpose: visor add-upgrade v2 <binary> --force/,
    );
    expect(readFileSync(join(dir, "bin", "fake"), "utf8")).toBe("v2");
    // An operator pointed current at a folder set aside earlier: pruning leaves it alone.
    const old = layout.upgradeDir("v1");
    mkdirSync(old, { recursive: true });
    writeFileSync(join(old, "n"), "old");
    const aside = layout.setAside(old, "test");
    layout.switchTo(aside);
    for (let i = 0; i < 5; i++) {
      const d = layout.prefetchDirOf(`p${i}`);
      mkdirSync(d, { recursive: true });
      writeFileSync(join(d, "n"), String(i));
      layout.setAside(d, "test");
    }
    expect(existsSync(join(aside, "n"))).toBe(true);
  });

  it("refuses plan names that would be taken for visor's own folders", () => {
    for (const name of ["v2.replaced-2020-01-01T00-00-00-000Z", "x.REPLACED-y", ".staging-v2", ".tmp-v2"])
      expect(() => layout.upgradeDir(name)).toThrow(
        /a leading "\." or "\.replaced-" is kept for visor's own folders/,
      );
    expect(layout.upgradeDir("v2.1")).toMatch(/upgrades\/v2\.1$/);
  });
});

describe("the current link", () => {
  let root: string;
  let layout: VisorLayout;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "visor-current-"));
    layout = new VisorLayout({ home: root, name: "fake", disableRecase: false });
    mkdirSync(join(layout.genesisDir, "bin"), { recursive: true });
    writeFileSync(layout.binaryIn(layout.genesisDir), "v1");
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it("a missing link is made to point at genesis, as cosmovisor does", () => {
    expect(layout.currentDir()).toBe(layout.genesisDir);
    expect(readlinkSync(layout.currentLink)).toBe("genesis");
  });

  it("a link pointing at a folder that is gone is an error naming it, and is left as it is", () => {
    const dir = layout.upgradeDir("v2");
    mkdirSync(join(dir, "bin"), { recursive: true });
    layout.switchTo(dir);
    // What a set-aside of the running folder, cut short by a crash, left behind.
    renameSync(dir, `${dir}.replaced-2025-01-01T00-00-00-000Z`);
    for (const ask of [() => layout.currentDir(), () => layout.currentPlan(), () => layout.currentBinary()])
      expect(ask).toThrow(
        /current points at upgrades\/v2 \(\S+\/upgrades\/v2\), which does not exist: put that binary back \(a folder set aside as \S+\/upgrades\/v2\.replaced-\* can be renamed back\)/,
      );
    expect(readlinkSync(layout.currentLink)).toBe("upgrades/v2");
  });

  it("an absolute link (older cosmovisor makes them) is followed as it is", () => {
    const dir = layout.upgradeDir("v2");
    mkdirSync(join(dir, "bin"), { recursive: true });
    symlinkSync(dir, layout.currentLink);
    expect(layout.currentDir()).toBe(dir);
    expect(layout.pointsAtCurrent(dir)).toBe(true);
  });
});

describe("two fetches of one plan: the second to finish checks what the first installed", () => {
  let root: string;
  let server: ReturnType<typeof createServer>;
  let base: string;
  let arrived: () => void;
  let requested: Promise<void>;
  let release: () => void;
  const body = Buffer.from("#!/bin/sh\necho A\n");
  const sha = (b: Buffer | string) => createHash("sha256").update(b).digest("hex");

  beforeEach(async () => {
    root = mkdtempSync(join(tmpdir(), "visor-race-"));
    requested = new Promise((r) => {
      arrived = r;
    });
    const gate = new Promise<void>((r) => {
      release = r;
    });
    // Holds the artifact back until the test has played the other fetch, so the order is certain.
    server = createServer(async (_req, res) => {
      arrived();
      await gate;
      res.writeHead(200, { "content-length": body.length }).end(body);
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    rmSync(root, { recursive: true, force: true });
  });

  /** Starts a fetch of plan v2 naming artifact A; once it is downloading, `other` fills upgrades/v2 first. */
  const race = async (other: { bytes: string; artifact: string }) => {
    const config = loadVisorConfig({
      DAEMON_HOME: root,
      DAEMON_NAME: "fake",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "true",
    });
    const layout = new VisorLayout(config);
    const info = JSON.stringify({ binaries: { any: `${base}/a?checksum=sha256:${sha(body)}` } });
    const fetching = ensureUpgradeBinary({ name: "v2", height: 10, info }, layout, config, {
      logger: silentLogger,
    }).then(
      (bin) => bin,
      (e: Error) => e,
    );
    await requested;
    const dir = layout.upgradeDir("v2");
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeFileSync(layout.binaryIn(dir), other.bytes, { mode: 0o755 });
    writeSource(dir, {
      ...sourceOf(
        { name: "v2", height: 10, info: "" },
        parseChecksummedUrl(other.artifact, false),
        sha(other.bytes),
      ),
      binary_sha256: sha(other.bytes),
    });
    release();
    return { got: await fetching, bin: layout.binaryIn(dir), upgrades: layout.upgradesDir };
  };

  it("refuses a binary of another artifact that another fetch installed meanwhile", async () => {
    const other = { bytes: "#!/bin/sh\necho B\n", artifact: `${base}/b` };
    const { got, bin, upgrades } = await race(other);
    expect(got).toBeInstanceOf(VisorError);
    expect((got as Error).message).toMatch(
      /upgrades\/v2 was filled meanwhile, by another fetch of v2, with another artifact \(it came from http:\/\/127\.0\.0\.1:\d+\/b, upgrade-info.json names http:\/\/127\.0\.0\.1:\d+\/a; its checksum is none, upgrade-info.json names sha256:[0-9a-f]{64}\): not using it/,
    );
    expect(readFileSync(bin, "utf8")).toBe(other.bytes);
    expect(readdirSync(upgrades)).toEqual(["v2"]);
  });

  it("uses the binary another fetch of the same artifact installed meanwhile", async () => {
    const same = { bytes: body.toString(), artifact: `${base}/a?checksum=sha256:${sha(body)}` };
    const { got, bin, upgrades } = await race(same);
    expect(got).toBe(bin);
    expect(readdirSync(upgrades)).toEqual(["v2"]);
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

  it("keeps an entry add-upgrade queues while the feed is between reading the batch file and writing it", async () => {
    const feed = new BatchFeed({ layout, api, logger: silentLogger });
    // The node's height is known (the home is behind yet); then the home reaches it.
    reported = 99;
    await feed.tick();
    expect(existsSync(layout.upgradeInfoFile)).toBe(false);
    await store.put("blockStore", blockStoreProto(99));
    // The feed reads [v2] and asks the node for its height, which the test holds in flight...
    let answer = () => {};
    node.hold = new Promise((r) => {
      answer = r;
    });
    const asked = node.requests;
    const tick = feed.tick();
    try {
      for (let i = 0; i < 400 && node.requests === asked; i++) await sleep(10);
      expect(node.requests).toBeGreaterThan(asked);
      // ... while an operator queues v3, as add-upgrade does beside a running visor.
      const binary = join(root, "fake-v3");
      writeFileSync(binary, "#!/bin/sh\n", { mode: 0o755 });
      const config = loadVisorConfig({ DAEMON_HOME: root, DAEMON_NAME: "fake" });
      await addUpgradeCommand(config, "v3", binary, { force: false, height: 200 });
    } finally {
      node.hold = null;
      answer();
    }
    await tick;
    expect(JSON.parse(readFileSync(layout.upgradeInfoFile, "utf8"))).toMatchObject({
      name: "v2",
      height: 100,
    });
    expect(JSON.parse(readFileSync(layout.batchFile, "utf8"))).toEqual([
      { name: "v3", height: 200, info: "" },
    ]);
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
