import { silentLogger } from "@chaind/core/logger";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { CounterModule } from "../../../fixtures/testchain/counter-module.js";
import { NotesModule } from "../../../fixtures/testchain/notes-module.js";
import { testchainV1 } from "../../../fixtures/testchain/v1/app.js";
import { testchainV2 } from "../../../fixtures/testchain/v2/app.js";
import { type AppDefinition, defineApp } from "../../../node/src/chain/app-definition.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { chaind, NodeProcess, testchainBin } from "../helpers/chaind-process.js";
import { GOV_ADDRESS, passProposal } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : undefined);
const key = (s: string) => new TextEncoder().encode(s);
const hexUpper = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

/** A v2 whose handler returns without running the migrations: no error, the wrong state. */
const wrongV2: AppDefinition = defineApp({
  name: "chaind",
  version: "2.0.0-wrong",
  modules: () => [new NotesModule(2), new CounterModule("counter")],
  upgrades: {
    handlers: { v2: async (_ctx, _plan, fromVM) => fromVM },
    storeUpgrades: { v2: { added: ["counter"] } },
  },
});

describe("the runbook: an upgrade handler wrote the wrong state; roll back, install the fixed binary, start", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function open(home: string, definition: AppDefinition): Promise<ChainNode> {
    const node = await ChainNode.open({ home, definition }, { logger: silentLogger });
    cleanups.push(() => node.close());
    return node;
  }

  it("undoes the blocks above H with --hard and block H's state without, then the fixed v2 binary executes H with its handler", async () => {
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      definition: testchainV1,
    });
    cleanups.push(h.cleanup);

    // v1 schedules the upgrade and halts in block H.
    const v1 = await open(h.home, testchainV1);
    await v1.producer.produce();
    const H = v1.store.latestHeight + 6;
    await passProposal(v1, new TxSigner(alice, 0n, h.chainId), [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan: { name: "v2", height: BigInt(H) } }),
    ]);
    while (v1.store.latestHeight < H - 1) await v1.producer.produce();
    await expect(v1.producer.produce()).rejects.toThrow('UPGRADE "v2" NEEDED');
    const hashBeforeH = hexUpper(v1.store.latestAppHash);
    await v1.close();

    // The wrong v2 applies the plan at H without migrating, and the chain goes on two blocks.
    const wrong = await open(h.home, wrongV2);
    for (let i = 0; i < 3; i++) await wrong.producer.produce();
    expect(wrong.store.latestHeight).toBe(H + 2);
    expect(text(await wrong.store.get("notes", key("greeting"), H))).toBe("hello from v1");
    const hashAtH = hexUpper((await wrong.blocks.meta(H + 1))!.header!.appHash);
    await wrong.close();

    // Back to H with --hard, block by block; then to H-1, keeping block H.
    const bin = testchainBin("v2");
    for (const [args, height, hash] of [
      [["--hard"], H + 1, undefined],
      [["--hard"], H, hashAtH],
      [[], H - 1, hashBeforeH],
    ] as const) {
      const r = await chaind(["rollback", "--home", h.home, ...args], { bin });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        new RegExp(`^Rolled back state to height ${height} and hash ${hash ?? "[0-9A-F]{64}"}$`),
      );
    }

    // The fixed binary executes the saved block H, running its handler there, and goes on.
    const fixed = new NodeProcess(h.home, [], undefined, bin);
    try {
      await fixed.waitFor(new RegExp(`applying upgrade "v2" at height: ${H}`));
      await fixed.waitFor(new RegExp(`committed block .*height=${H + 1} `));
    } finally {
      fixed.proc.kill("SIGTERM");
      await fixed.proc;
    }
    expect(fixed.lines.join("\n")).toMatch(new RegExp(`executing saved block .*height=${H}`));
    expect(fixed.committed().get(H)).not.toBe(hashAtH);

    const after = await open(h.home, testchainV2);
    expect(text(await after.store.get("notes", key("greeting"), H))).toBe("HELLO FROM V1");
    expect(text(await after.store.get("notes", key("greeting"), H - 1))).toBe("hello from v1");
  }, 60_000);
});
