import { silentLogger } from "@chaind/core/logger";
import {
  QueryModuleVersionsRequestSchema,
  QueryModuleVersionsResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { NotesModule } from "../../../fixtures/testchain/notes-module.js";
import { testchainV1 } from "../../../fixtures/testchain/v1/app.js";
import { testchainV2 } from "../../../fixtures/testchain/v2/app.js";
import { testchainV3 } from "../../../fixtures/testchain/v3/app.js";
import { type AppDefinition, defineApp } from "../../../node/src/chain/app-definition.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { GOV_ADDRESS, passProposal, queryApp } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const text = (b: Uint8Array | undefined) => (b ? new TextDecoder().decode(b) : undefined);
const u32 = (b: Uint8Array | undefined) =>
  b ? new DataView(b.buffer, b.byteOffset, 4).getUint32(0) : undefined;
const key = (s: string) => new TextEncoder().encode(s);

describe("test chain versions v1 -> v2 -> v3", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function open(home: string, definition: AppDefinition) {
    const node = await ChainNode.open({ home, definition }, { logger: silentLogger });
    let open = true;
    cleanups.push(() => (open ? node.close() : undefined));
    return Object.assign(node, {
      shut: async () => {
        open = false;
        await node.close();
      },
    });
  }

  const versions = async (node: ChainNode, height = 0) =>
    Object.fromEntries(
      (
        await queryApp(
          node,
          "/sdk.upgrade.v1beta1.Query/ModuleVersions",
          QueryModuleVersionsRequestSchema,
          {},
          QueryModuleVersionsResponseSchema,
          height,
        )
      ).moduleVersions.map((m) => [m.name, Number(m.version)]),
    );

  async function scheduleAndHalt(node: ChainNode, signer: TxSigner, name: string): Promise<number> {
    const height = node.store.latestHeight + 6;
    await passProposal(node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV_ADDRESS, plan: { name, height: BigInt(height) } }),
    ]);
    while (node.store.latestHeight < height - 1) await node.producer.produce();
    await expect(node.producer.produce()).rejects.toThrow(`UPGRADE "${name}" NEEDED`);
    return height;
  }

  it("adds a store and migrates data at v2, renames and deletes stores at v3, each once and at its height", async () => {
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      definition: testchainV1,
    });
    cleanups.push(h.cleanup);
    const signer = new TxSigner(alice, 0n, h.chainId);

    const v1 = await open(h.home, testchainV1);
    await v1.producer.produce();
    expect(text(await v1.store.get("notes", key("greeting")))).toBe("hello from v1");
    expect(await versions(v1)).toMatchObject({ notes: 1 });
    const v2Height = await scheduleAndHalt(v1, signer, "v2");
    await v1.shut();

    const v2 = await open(h.home, testchainV2);
    await v2.producer.produce();
    expect(text(await v2.store.get("notes", key("greeting")))).toBe("HELLO FROM V1");
    expect(text(await v2.store.get("notes", key("greeting"), v2Height - 1))).toBe("hello from v1");
    expect(u32(await v2.store.get("counter", key("count")))).toBe(1);
    expect(await versions(v2)).toMatchObject({ notes: 2, counter: 1 });
    expect(await versions(v2, v2Height - 1)).not.toHaveProperty("counter");
    await v2.producer.produce();
    await v2.shut();

    // A restart of v2 runs no store upgrade or migration again: the counter keeps counting from where it was.
    const again = await open(h.home, testchainV2);
    await again.producer.produce();
    expect(u32(await again.store.get("counter", key("count")))).toBe(3);
    const v3Height = await scheduleAndHalt(again, signer, "v3");
    const countBefore = u32(await again.store.get("counter", key("count")));
    await again.shut();

    const v3 = await open(h.home, testchainV3);
    await v3.producer.produce();
    expect(await v3.store.get("counter", key("count"))).toBeUndefined();
    expect(u32(await v3.store.get("tally", key("count")))).toBe(countBefore! + 1);
    expect(await v3.store.get("notes", key("greeting"))).toBeUndefined();
    expect(text(await v3.store.get("notes", key("greeting"), v3Height - 1))).toBe("HELLO FROM V1");
    const vm = await versions(v3);
    expect(vm).toMatchObject({ counter: 1 });
    expect(vm).not.toHaveProperty("notes");
  }, 60_000);

  it("a failing handler halts the node without committing the upgrade block, and a fixed binary then applies it", async () => {
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
      definition: testchainV1,
    });
    cleanups.push(h.cleanup);
    const signer = new TxSigner(alice, 0n, h.chainId);
    const v1 = await open(h.home, testchainV1);
    await v1.producer.produce();
    const height = await scheduleAndHalt(v1, signer, "v2");
    const appHash = Buffer.from(v1.store.latestAppHash).toString("hex");
    await v1.shut();

    const broken = defineApp({
      name: "chaind",
      version: "2.0.0-broken",
      modules: () => [new NotesModule(2)],
      upgrades: {
        handlers: {
          v2: async () => {
            throw new Error("migration failed on purpose");
          },
        },
      },
    });
    const b = await open(h.home, broken);
    await expect(b.producer.produce()).rejects.toThrow("migration failed on purpose");
    expect(b.store.latestHeight).toBe(height - 1);
    expect(Buffer.from(b.store.latestAppHash).toString("hex")).toBe(appHash);
    await b.shut();

    const fixed = await open(h.home, testchainV2);
    expect((await fixed.producer.produce()).height).toBe(height);
    expect(await versions(fixed)).toMatchObject({ notes: 2 });
  }, 60_000);
});
