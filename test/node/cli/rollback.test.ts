import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { silentLogger } from "@chaind/core/logger";
import { parse, stringify } from "smol-toml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { closeNodeServers, startNodeServers } from "../../../node/src/server/node-servers.js";
import { chaind, NodeProcess, startTestnet, stopNode, type TestnetKey } from "../helpers/chaind-process.js";
import { makeTestHome, TEST_DEFINITION } from "../helpers/test-home.js";

const FEES = ["--gas-prices", "0.0001stake"];

/** The chain makes a block only when a tx waits, so the last block is the one holding the last tx sent. */
function blocksOnlyForTxs(home: string): void {
  const path = join(home, "config", "config.toml");
  const doc = parse(readFileSync(path, "utf8")) as { consensus: Record<string, unknown> };
  doc.consensus.create_empty_blocks = false;
  writeFileSync(path, stringify(doc));
}

/** height -> block hash, from the "committed block" lines. */
function blockHashes(node: NodeProcess): Map<number, string> {
  const out = new Map<number, string>();
  for (const l of node.lines) {
    const m = l.match(/committed block .*height=(\d+) .*block_hash=([0-9A-F]+)/);
    if (m) out.set(Number(m[1]), m[2]);
  }
  return out;
}

async function offlineHeight(home: string): Promise<{ height: number; appHash: string }> {
  const r = await chaind(["status", "--home", home]);
  expect(r.exitCode, r.stderr).toBe(0);
  const s = JSON.parse(r.stdout).sync_info;
  return { height: Number(s.latest_block_height), appHash: s.latest_app_hash };
}

describe("chaind rollback on a real home", () => {
  let dir: string;
  let home: string;
  let keys: TestnetKey[];
  let node: NodeProcess | undefined;
  let rpc: string;
  /** height -> app hash, over every node process of the chain. */
  const appHashes = new Map<number, string>();
  const bob = () => keys.find((k) => k.name === "bob")!.address;

  async function startNode(): Promise<void> {
    node = new NodeProcess(home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
  }
  async function stop(): Promise<void> {
    await stopNode(node);
    for (const [h, hash] of node!.committed()) appHashes.set(h, hash);
  }
  async function send(amount: string): Promise<{ height: number; hash: string }> {
    const r = await chaind([
      ...["tx", "bank", "send", "alice", bob(), amount, ...FEES],
      ...["--home", home, "--node", rpc, "--wait", "-o", "json"],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const res = JSON.parse(r.stdout) as { height: string; txhash: string; code: number };
    expect(res.code).toBe(0);
    return { height: Number(res.height), hash: res.txhash };
  }
  async function rollback(...args: string[]) {
    return chaind(["rollback", "--home", home, ...args]);
  }
  async function bobBalance(node: string, height?: number): Promise<string> {
    const at = height === undefined ? [] : ["--height", String(height)];
    const r = await chaind(["q", "bank", "balances", bob(), "--node", node, "-o", "json", ...at]);
    expect(r.exitCode, r.stderr).toBe(0);
    return JSON.parse(r.stdout).balances[0].amount;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "rollback-"));
    home = join(dir, "home");
    ({ node, keys } = await startTestnet(home, ["--block-time", "200ms", "--keys", "2"]));
  });
  afterAll(async () => {
    await stopNode(node);
    rmSync(dir, { recursive: true, force: true });
  });

  it("refuses while the node runs; rolls back to H-1 keeping block H, which the next start executes to the same app hash; --hard removes block H", async () => {
    const running = await rollback();
    expect(running.exitCode).toBe(1);
    expect(running.stderr).toMatch(
      /^Error: cannot roll back while the node runs: .* is locked by another process/,
    );
    expect(running.stderr.trim().split("\n")).toHaveLength(1);
    await stop();

    // Block H holds a tx and is the last block.
    blocksOnlyForTxs(home);
    await startNode();
    const tx1 = await send("7stake");
    const H = tx1.height;
    const atH = await bobBalance(rpc);
    const beforeH = await bobBalance(rpc, H - 1);
    expect(BigInt(atH) - BigInt(beforeH)).toBe(7n);
    await stop();
    expect(Math.max(...appHashes.keys())).toBe(H);

    const rolled = await rollback();
    expect(rolled.exitCode, rolled.stderr).toBe(0);
    expect(rolled.stdout).toBe(`Rolled back state to height ${H - 1} and hash ${appHashes.get(H - 1)}`);
    // Block H stays: the status of the stopped home reports it, with the app hash before it.
    expect(await offlineHeight(home)).toEqual({ height: H, appHash: appHashes.get(H - 1) });

    // The state at H-1 answers: served in this process (which makes no block), asked by the real CLI.
    const live = await ChainNode.open({ home, definition: TEST_DEFINITION }, { logger: silentLogger });
    const servers = await startNodeServers(live, { logger: silentLogger });
    try {
      expect(live.store.latestHeight).toBe(H - 1);
      const liveRpc = servers.find((s) => s.name === "rpc")!.address;
      expect(await bobBalance(liveRpc)).toBe(beforeH);
      // Block H's results and tx index went with its state; executing it again writes them anew.
      const client = new NodeRpcClient(liveRpc);
      await expect(client.call("block_results", { height: String(H) })).rejects.toThrow("not available");
      await expect(client.call("tx", { hash: tx1.hash })).rejects.toThrow(`tx (${tx1.hash}) not found`);
    } finally {
      await closeNodeServers(servers);
      await live.close();
    }

    // The next start executes the saved block H again, to the same app hash, and goes on.
    await startNode();
    const again = await node!.waitFor(/committed block .*height=(\d+) .*app_hash=([0-9A-F]+)/);
    expect([Number(again[1]), again[2]]).toEqual([H, appHashes.get(H)]);
    expect(await bobBalance(rpc)).toBe(atH);
    const tx2 = await send("5stake");
    expect(tx2.height).toBe(H + 1);
    const found = await new NodeRpcClient(rpc).call<{ height: string }>("tx", { hash: tx1.hash });
    expect(found.height).toBe(String(H));
    const removedBlockHash = blockHashes(node!).get(H + 1);
    await stop();

    // --hard: block H+1 goes with its state. The validator signed block H+1, so the next start refuses to make
    // (and sign) another block H+1, and says why; only after the operator resets the sign state on purpose
    // does it make a new one.
    const signStatePath = join(home, "data", "priv_validator_state.json");
    const signed = readFileSync(signStatePath, "utf8");
    expect(JSON.parse(signed).height).toBe(String(H + 1));
    const hard = await rollback("--hard");
    expect(hard.exitCode, hard.stderr).toBe(0);
    expect(hard.stdout).toBe(`Rolled back state to height ${H} and hash ${appHashes.get(H)}`);
    expect((await offlineHeight(home)).height).toBe(H);
    const refused = await chaind(["start", "--home", home]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      `Error: cannot start node: the validator signed a block at height ${H + 1} (${signStatePath}) but this node's blocks end at height ${H}`,
    );
    expect(refused.stdout).not.toMatch(/committed block/);
    expect(readFileSync(signStatePath, "utf8")).toBe(signed);
    const reset = await chaind(["comet", "unsafe-reset-priv-validator", "--home", home]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    await startNode();
    const tx3 = await send("3stake");
    expect(tx3.height).toBe(H + 1);
    expect(blockHashes(node!).get(H + 1)).not.toBe(removedBlockHash);
    await expect(new NodeRpcClient(rpc).call("tx", { hash: tx2.hash })).rejects.toThrow(
      `tx (${tx2.hash}) not found`,
    );
    await stop();
  });
});

describe("chaind rollback refuses", () => {
  it("at height 1, and in a home whose node never ran", async () => {
    const h = makeTestHome();
    try {
      const never = await chaind(["rollback", "--home", h.home]);
      expect(never.exitCode).toBe(1);
      expect(never.stderr).toMatch(
        /^Error: nothing to roll back: no database at \S+ \(the node never ran in this home\)$/,
      );

      const n = await ChainNode.open({ home: h.home, definition: TEST_DEFINITION }, { logger: silentLogger });
      await n.producer.produce();
      await n.close();
      const first = await chaind(["rollback", "--home", h.home, "--hard"]);
      expect(first.exitCode).toBe(1);
      expect(first.stderr).toBe(
        "Error: cannot roll back from height 1: there is no earlier committed state to return to",
      );
      expect(first.stdout).toBe("");
    } finally {
      h.cleanup();
    }
  });
});
