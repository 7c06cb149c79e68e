import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { toBinary } from "@bufbuild/protobuf";
import { NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { silentLogger } from "@chaind/core/logger";
import { freePort } from "@chaind/harness/free-listener-ports";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { testchainV1 } from "../../../fixtures/testchain/v1/app.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { defaultClientConfig, renderClientToml } from "../../../node/src/config/client-config.js";
import type { CrashPoint } from "../../../node/src/consensus/crash-point.js";
import { UpgradeHaltError } from "../../../node/src/modules/upgrade/upgrade-halt.js";
import { closeNodeServers, startNodeServers } from "../../../node/src/server/node-servers.js";
import { CHAIND_BIN, chaind, NodeProcess, testchainBin } from "../helpers/chaind-process.js";
import { GOV_ADDRESS, passProposal } from "../helpers/gov-flow.js";
import { replayFromGenesis } from "../helpers/replay-chain.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");

/**
 * cosmovisor 1.7's check before it upgrades, restated from its file watcher: run `<bin> status --home <home>`,
 * take stdout and stderr together, read `sync_info.latest_block_height` or else `SyncInfo.latest_block_height`
 * (a decimal string), and upgrade only when that height is at least the plan height of upgrade-info.json. An
 * error or an empty height means no upgrade.
 */
async function cosmovisorHeightCheck(
  bin: string,
  home: string,
): Promise<{ height: number; upgrade: boolean }> {
  const r = await execa("node", [bin, "status", "--home", home], { all: true, reject: false });
  if (r.exitCode !== 0) throw new Error(`status failed: ${r.all}`);
  const resp = JSON.parse(r.all) as {
    sync_info?: { latest_block_height?: string };
    SyncInfo?: { latest_block_height?: string };
  };
  const raw = resp.sync_info?.latest_block_height || resp.SyncInfo?.latest_block_height;
  if (!raw) throw new Error("latest block height is empty");
  if (!/^[+-]?\d+$/.test(raw)) throw new Error(`invalid height ${raw}`);
  const height = Number(raw);
  const plan = JSON.parse(readFileSync(join(home, "data", "upgrade-info.json"), "utf8")) as {
    height: number;
  };
  return { height, upgrade: height >= plan.height };
}

type Status = {
  sync_info: { latest_block_height: string; latest_block_hash: string; latest_app_hash: string };
  node_info: { network: string; moniker: string; id: string };
};

async function offlineStatus(home: string, bin = CHAIND_BIN): Promise<Status> {
  const r = await chaind(["status", "--home", home], { bin });
  expect(r.exitCode, r.stderr).toBe(0);
  expect(r.stderr).toBe("");
  return JSON.parse(r.stdout) as Status;
}

/** Points config.toml's RPC and client.toml's node at one free loopback port, so `status` finds the node. */
async function homeWithKnownRpc(opts: Parameters<typeof makeTestHome>[0]) {
  const port = await freePort();
  const h = makeTestHome({
    ...opts,
    tuneNode: (c) => {
      c.rpc.laddr = `tcp://127.0.0.1:${port}`;
      opts?.tuneNode?.(c);
    },
  });
  writeFileSync(
    join(h.home, "config", "client.toml"),
    renderClientToml({ ...defaultClientConfig(h.chainId), node: `tcp://127.0.0.1:${port}` }),
  );
  return { ...h, rpc: `http://127.0.0.1:${port}` };
}

describe("a node halted in block H, as CometBFT leaves one", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("proposes the block it halts in without waiting out timeout_commit", async () => {
    const TIMEOUT_COMMIT_MS = 2000;
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      definition: testchainV1,
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = TIMEOUT_COMMIT_MS;
      },
    });
    cleanups.push(h.cleanup);
    const node = await ChainNode.open({ home: h.home, definition: testchainV1 }, { logger: silentLogger });
    cleanups.push(() => node.close());
    await node.producer.produce();
    // The proposal takes three blocks (submit, vote, tally); the node then runs two more itself.
    const plan = node.store.latestHeight + 5;
    await passProposal(node, new TxSigner(alice, 0n, h.chainId), [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan: { name: "v2", height: BigInt(plan) } }),
    ]);
    expect(node.store.latestHeight).toBe(plan - 2);
    const reason = await node.run();
    expect(reason.kind === "error" && reason.error instanceof UpgradeHaltError).toBe(true);
    expect(node.store.latestHeight).toBe(plan - 1);
    const timeOf = async (height: number) => {
      const t = (await node.blocks.meta(height))!.header!.time!;
      return Number(t.seconds) * 1000 + t.nanos / 1e6;
    };
    // The block before waited out timeout_commit; the one the node halts in followed at once.
    expect((await timeOf(plan - 1)) - (await timeOf(plan - 2))).toBeGreaterThanOrEqual(TIMEOUT_COMMIT_MS);
    expect((await timeOf(plan)) - (await timeOf(plan - 1))).toBeLessThan(TIMEOUT_COMMIT_MS);
  });

  it("keeps block H saved but unapplied; status says H running and stopped; the old binary halts in H again, the new one executes it", async () => {
    const h = await homeWithKnownRpc({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      definition: testchainV1,
    });
    cleanups.push(h.cleanup);
    const infoPath = join(h.home, "data", "upgrade-info.json");

    // Schedule v2 through gov in process, then let the real v1 binary run into the plan height.
    const setup = await ChainNode.open({ home: h.home, definition: testchainV1 }, { logger: silentLogger });
    await setup.producer.produce();
    const plan = setup.store.latestHeight + 8;
    await passProposal(setup, new TxSigner(alice, 0n, h.chainId), [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan: { name: "v2", height: BigInt(plan) } }),
    ]);
    expect(setup.store.latestHeight).toBeLessThan(plan - 1);
    await setup.close();

    const v1 = new NodeProcess(h.home, [], undefined, testchainBin("v1"));
    const halted = await v1.proc;
    expect(halted.exitCode, v1.lines.join("\n")).toBe(3);
    expect(v1.lines.join("\n")).toContain(`UPGRADE "v2" NEEDED at height: ${plan}`);
    const committed = v1.committed();
    expect(Math.max(...committed.keys())).toBe(plan - 1);

    // Stopped: the home's block store answers, with the block the node halted in.
    const stopped = await offlineStatus(h.home, testchainBin("v1"));
    expect(stopped.sync_info.latest_block_height).toBe(String(plan));
    // Block H's header carries the app hash after H-1: the state the node stopped at.
    expect(stopped.sync_info.latest_app_hash).toBe(committed.get(plan - 1));
    expect(stopped.node_info.network).toBe(h.chainId);
    expect(await cosmovisorHeightCheck(testchainBin("v1"), h.home)).toEqual({ height: plan, upgrade: true });

    // Running and halted (CometBFT stays up after a consensus failure; chaind exits, so the node runs here, in
    // this process, with its real RPC server): `status` finds the database in use and asks the RPC.
    const live = await ChainNode.open({ home: h.home, definition: testchainV1 }, { logger: silentLogger });
    const servers = await startNodeServers(live, { logger: silentLogger });
    try {
      const reason = await live.run();
      expect(reason.kind === "error" && reason.error instanceof UpgradeHaltError).toBe(true);
      expect(live.store.latestHeight).toBe(plan - 1);
      expect(live.blocks.height).toBe(plan);
      expect(await cosmovisorHeightCheck(testchainBin("v1"), h.home)).toEqual({
        height: plan,
        upgrade: true,
      });
      const rpc = new NodeRpcClient(h.rpc);
      const status = await rpc.call<Status>("status");
      expect(status.sync_info).toEqual(stopped.sync_info);
      // As CometBFT: block H exists, its results do not until the app has run it.
      const block = await rpc.call<{ block: { header: { height: string } } }>("block", {
        height: String(plan),
      });
      expect(block.block.header.height).toBe(String(plan));
      expect((await rpc.call<{ last_height: string }>("blockchain")).last_height).toBe(String(plan));
      await expect(rpc.call("block_results", { height: String(plan) })).rejects.toThrow(
        `results for height ${plan} are not available`,
      );
      await expect(rpc.call("block_results")).rejects.toThrow("not available");
    } finally {
      await closeNodeServers(servers);
      await live.close();
    }

    // The old binary restarted runs block H again, halts in it, writes the plan again, and makes no block. Under
    // a cosmovisor-style supervisor (DAEMON_HOME set, no VISOR_PID) it stays up after the halt, as an SDK node
    // does, until the supervisor's poller has seen the plan and stops it; the home answers `status` meanwhile.
    rmSync(infoPath);
    const again = new NodeProcess(
      h.home,
      [],
      { DAEMON_HOME: h.home, DAEMON_NAME: "chaind" },
      testchainBin("v1"),
    );
    await again.waitFor(/upgrade halt: waiting for the supervisor to stop this process/);
    expect(again.proc.exitCode).toBeNull();
    expect(await cosmovisorHeightCheck(testchainBin("v1"), h.home)).toEqual({ height: plan, upgrade: true });
    expect(again.proc.exitCode).toBeNull();
    again.proc.kill("SIGINT");
    expect((await again.proc).exitCode, again.lines.join("\n")).toBe(3);
    expect(again.lines.join("\n")).toMatch(new RegExp(`executing saved block .*height=${plan}`));
    expect(again.committed().size).toBe(0);
    expect(JSON.parse(readFileSync(infoPath, "utf8"))).toMatchObject({ name: "v2", height: plan });
    expect((await offlineStatus(h.home)).sync_info).toEqual(stopped.sync_info);

    // The new binary executes that very block H (the handler runs at H), then goes on to H+1.
    const v2 = new NodeProcess(h.home, [], undefined, testchainBin("v2"));
    try {
      await v2.waitFor(new RegExp(`applying upgrade "v2" at height: ${plan}`));
      await v2.waitFor(new RegExp(`committed block .*height=${plan + 1} `));
      const line = v2.lines.find((l) => new RegExp(`committed block .*height=${plan} `).test(l))!;
      expect(line).toContain(`block_hash=${stopped.sync_info.latest_block_hash}`);
    } finally {
      v2.proc.kill("SIGTERM");
      await v2.proc;
    }
    const after = await offlineStatus(h.home);
    expect(Number(after.sync_info.latest_block_height)).toBeGreaterThan(plan);
    expect(existsSync(infoPath)).toBe(true);
  }, 120_000);
});

describe("a crash between saving block H and committing it", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  for (const point of ["block-saved", "block-executed"] as CrashPoint[]) {
    it(`(${point}) restarts by executing exactly the saved block, to the same app hash`, async () => {
      const h = await homeWithKnownRpc({
        accounts: [{ account: alice, coins: "100000000stake" }],
        // Blocks only when a tx comes, so the crash falls in the block that holds it.
        tuneNode: (c) => {
          c.consensus.createEmptyBlocks = false;
        },
      });
      cleanups.push(h.cleanup);
      const crashing = new NodeProcess(h.home, [], { CHAIND_CRASH_AT: point });
      await crashing.waitFor(/\brpc listening/);
      const tx = await new TxSigner(alice, 0n, h.chainId).sign([
        anyOf(MsgSendSchema, {
          fromAddress: alice.address,
          toAddress: bob.address,
          amount: [{ denom: "stake", amount: "5" }],
        }),
      ]);
      await new NodeRpcClient(h.rpc)
        .call("broadcast_tx_sync", { tx: Buffer.from(tx).toString("base64") })
        .catch(() => undefined); // the node may die before it answers
      expect((await crashing.proc).signal, crashing.lines.join("\n")).toBe("SIGKILL");
      expect(crashing.committed().size).toBe(0);

      const status = await offlineStatus(h.home);
      expect(status.sync_info.latest_block_height).toBe("1");
      const before = await ChainNode.open(
        { home: h.home, definition: TEST_DEFINITION },
        { logger: silentLogger },
      );
      const saved = (await before.blocks.block(1))!;
      expect(before.store.latestHeight).toBe(0);
      expect(before.blocks.unappliedHeight).toBe(1);
      expect(saved.data!.txs).toEqual([tx]);
      await before.close();

      const restarted = new NodeProcess(h.home);
      try {
        await restarted.waitFor(/executing saved block .*height=1\b/);
        await restarted.waitFor(/committed block .*height=1 /);
      } finally {
        restarted.proc.kill("SIGTERM");
        await restarted.proc;
      }
      expect(restarted.lines.find((l) => /committed block .*height=1 /.test(l))).toContain(
        `block_hash=${status.sync_info.latest_block_hash}`,
      );

      const node = await ChainNode.open(
        { home: h.home, definition: TEST_DEFINITION },
        { logger: silentLogger },
      );
      try {
        expect(toBinary(BlockSchema, (await node.blocks.block(1))!)).toEqual(toBinary(BlockSchema, saved));
        const results = await node.blocks.results(1);
        expect(results?.txResults.map((r) => r.code)).toEqual([0]);
        const replay = await replayFromGenesis(node, h.home);
        expect(replay.filter((r) => r.stored !== r.replayed)).toEqual([]);
        expect(replay.length).toBe(node.store.latestHeight);
      } finally {
        await node.close();
      }
    }, 60_000);
  }
});
