import { chmodSync, cpSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { LineCollector } from "@chaind/harness/line-collector";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { execa } from "execa";
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
const VISOR = join(import.meta.dirname, "../../../supervisor/bin/visor.js");

/** An executable visor can install and run: a script that runs a fixture version's built `chaind`. */
function wrapperOf(dir: string, v: "v1" | "v2"): string {
  const path = join(dir, `chaind-${v}`);
  writeFileSync(path, `#!/bin/sh\nexec node ${JSON.stringify(testchainBin(v))} "$@"\n`);
  chmodSync(path, 0o755);
  return path;
}

/** v1 schedules plan v2 at a height H and halts in block H (upgrade-info.json written); answers H. */
async function runV1IntoTheHalt(chainId: string, open: (d: AppDefinition) => Promise<ChainNode>) {
  const v1 = await open(testchainV1);
  await v1.producer.produce();
  const H = v1.store.latestHeight + 6;
  await passProposal(v1, new TxSigner(alice, 0n, chainId), [
    anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan: { name: "v2", height: BigInt(H) } }),
  ]);
  while (v1.store.latestHeight < H - 1) await v1.producer.produce();
  await expect(v1.producer.produce()).rejects.toThrow('UPGRADE "v2" NEEDED');
  const hashBeforeH = hexUpper(v1.store.latestAppHash);
  await v1.close();
  return { H, hashBeforeH };
}

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

    const { H, hashBeforeH } = await runV1IntoTheHalt(h.chainId, (d) => open(h.home, d));

    // Halted in block H, the state is already the one before it (CometBFT's rule): rollback keeps everything,
    // and --hard (tried on a copy of the home) removes only the saved block.
    const copy = join(h.home, "..", `${basename(h.home)}-copy`);
    cpSync(h.home, copy, { recursive: true });
    cleanups.push(() => rmSync(copy, { recursive: true, force: true }));
    for (const [home, args] of [
      [h.home, []],
      [copy, ["--hard"]],
    ] as const) {
      const r = await chaind(["rollback", "--home", home, ...args]);
      expect(r.stdout, r.stderr).toBe(`Rolled back state to height ${H - 1} and hash ${hashBeforeH}`);
    }
    const status = async (home: string) =>
      JSON.parse((await chaind(["status", "--home", home])).stdout).sync_info.latest_block_height;
    expect([await status(h.home), await status(copy)]).toEqual([String(H), String(H - 1)]);

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

    // The wrong v2 signed blocks H+1 and H+2, which the fixed one will make anew: start refuses until the
    // operator resets the sign state, as every validator of a coordinated rollback must (the runbook).
    const refused = await chaind(["start", "--home", h.home], { bin });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(`the validator signed a block at height ${H + 2}`);
    const reset = await chaind(["comet", "unsafe-reset-priv-validator", "--home", h.home], { bin });
    expect(reset.exitCode, reset.stderr).toBe(0);

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

  it("under visor: stop visor, roll back with current's binary, put the fixed binary in upgrades/v2, start visor again", async () => {
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      definition: testchainV1,
    });
    cleanups.push(h.cleanup);
    const env = {
      DAEMON_HOME: h.home,
      DAEMON_NAME: "chaind",
      DAEMON_POLL_INTERVAL: "100ms",
      DAEMON_RESTART_AFTER_UPGRADE: "true",
      UNSAFE_SKIP_BACKUP: "true",
      VISOR_PREFETCH: "false",
      COSMOVISOR_COLOR_LOGS: "false",
    };
    const visor = (args: string[]) => execa("node", [VISOR, ...args], { env, reject: false, all: true });
    /** `visor run start` until the node stops itself at `--halt-height`; answers visor's and the node's lines. */
    async function runVisorUntil(haltHeight: number): Promise<string[]> {
      const proc = execa(
        "node",
        [VISOR, "run", "start", "--home", h.home, "--halt-height", String(haltHeight)],
        {
          env,
          reject: false,
          all: true,
          buffer: false,
        },
      );
      const out = new LineCollector(proc.all!);
      const r = await proc;
      expect(r.exitCode, out.lines.join("\n")).toBe(0);
      return out.lines;
    }

    const { H, hashBeforeH } = await runV1IntoTheHalt(h.chainId, (d) => open(h.home, d));
    expect((await visor(["init", wrapperOf(h.home, "v1")])).exitCode).toBe(0);
    // The binary for v2 that turns out wrong (here the same v2: what matters is where each step happens).
    expect((await visor(["add-upgrade", "v2", wrapperOf(h.home, "v2")])).exitCode).toBe(0);
    const first = await runVisorUntil(H + 1);
    expect(first.join("\n")).toContain("switched current binary");
    const hashAtH = first
      .map((l) => l.match(new RegExp(`committed block .*height=${H} .*app_hash=([0-9A-F]+)`)))
      .find((m) => m)![1];

    // Roll back with the binary current runs, down to H-1 with block H kept.
    const current = join(h.home, "cosmovisor", "current", "bin", "chaind");
    const hard = await execa(current, ["rollback", "--hard", "--home", h.home], { reject: false });
    expect(hard.stdout).toBe(`Rolled back state to height ${H} and hash ${hashAtH}`);
    const soft = await execa(current, ["rollback", "--home", h.home], { reject: false });
    expect(soft.stdout).toBe(`Rolled back state to height ${H - 1} and hash ${hashBeforeH}`);
    const fixed = await visor(["add-upgrade", "v2", wrapperOf(h.home, "v2"), "--force"]);
    expect(fixed.exitCode, fixed.all).toBe(0);
    const reset = await execa(current, ["comet", "unsafe-reset-priv-validator", "--home", h.home], {
      reject: false,
    });
    expect(reset.exitCode, reset.stderr).toBe(0);

    // Visor sees the plan current already runs: no upgrade again; the node executes block H with its handler.
    const second = (await runVisorUntil(H + 1)).join("\n");
    expect(second).not.toContain("upgrade detected");
    expect(second).toMatch(new RegExp(`executing saved block .*height=${H}`));
    expect(second).toMatch(new RegExp(`applying upgrade "v2" at height: ${H}`));
    expect(second).toMatch(new RegExp(`committed block .*height=${H} .*app_hash=${hashAtH}`));
    expect(second).toMatch(new RegExp(`committed block .*height=${H + 1} `));
  }, 60_000);
});
