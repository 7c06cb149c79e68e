import { existsSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { ProposalStatus, VoteOption } from "@chaind/proto/sdk/gov/v1/gov_pb";
import { MsgSubmitProposalSchema, MsgVoteSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import {
  QueryAppliedPlanRequestSchema,
  QueryAppliedPlanResponseSchema,
  QueryCurrentPlanRequestSchema,
  QueryCurrentPlanResponseSchema,
  QueryModuleVersionsRequestSchema,
  QueryModuleVersionsResponseSchema,
} from "@chaind/proto/sdk/upgrade/v1beta1/query_pb";
import { MsgCancelUpgradeSchema, MsgSoftwareUpgradeSchema } from "@chaind/proto/sdk/upgrade/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { defineApp } from "../../../node/src/chain/app-definition.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { UpgradeHaltError } from "../../../node/src/modules/upgrade/upgrade-halt.js";
import { GOV_ADDRESS, passProposal, queryApp } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const GOV = GOV_ADDRESS;
const V2 = defineApp({
  name: "chaind",
  version: "2.0.0-test",
  upgrades: { handlers: { v2: async (_ctx, _plan, fromVM, run) => run(fromVM) } },
});

describe("upgrade lifecycle in process", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function open(home: string, definition = TEST_DEFINITION, skip: number[] = []) {
    const node = await ChainNode.open(
      { home, definition, skipUpgradeHeights: skip },
      { logger: silentLogger },
    );
    let closed = false;
    cleanups.push(() => (closed ? undefined : node.close()));
    return {
      node,
      close: async () => {
        closed = true;
        await node.close();
      },
    };
  }

  const setup = () => {
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
    });
    cleanups.push(h.cleanup);
    return h;
  };

  it("schedules through gov, halts the old binary at the height, and the new binary applies the plan", async () => {
    const h = setup();
    const v1 = await open(h.home);
    await v1.node.producer.produce();
    const signer = new TxSigner(alice, 0n, h.chainId);
    const planHeight = v1.node.store.latestHeight + 8;
    const proposal = await passProposal(v1.node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, {
        authority: GOV,
        plan: { name: "v2", height: BigInt(planHeight), info: '{"binaries":{}}' },
      }),
    ]);
    expect(proposal.status, JSON.stringify(proposal.finalTallyResult)).toBe(ProposalStatus.PASSED);
    expect(proposal.finalTallyResult?.yesCount).toBe("1000000");
    const plan = await queryApp(
      v1.node,
      "/sdk.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      {},
      QueryCurrentPlanResponseSchema,
    );
    expect(plan.plan?.name).toBe("v2");
    while (v1.node.store.latestHeight < planHeight - 1) await v1.node.producer.produce();
    await expect(v1.node.producer.produce()).rejects.toThrow(UpgradeHaltError);
    await expect(v1.node.producer.produce()).rejects.toThrow(`UPGRADE "v2" NEEDED at height: ${planHeight}`);
    expect(v1.node.store.latestHeight).toBe(planHeight - 1);
    const infoPath = join(h.home, "data", "upgrade-info.json");
    expect(JSON.parse(readFileSync(infoPath, "utf8"))).toEqual({
      name: "v2",
      time: "0001-01-01T00:00:00Z",
      height: planHeight,
      info: '{"binaries":{}}',
    });
    expect(statSync(infoPath).mode & 0o777).toBe(0o600);
    await v1.close();

    // The old binary restarted halts again at once.
    const again = await open(h.home);
    await expect(again.node.producer.produce()).rejects.toThrow(`UPGRADE "v2" NEEDED`);
    await again.close();

    const v2 = await open(h.home, V2);
    const applied = await v2.node.producer.produce();
    expect(applied.height).toBe(planHeight);
    await v2.node.producer.produce();
    const done = await queryApp(
      v2.node,
      "/sdk.upgrade.v1beta1.Query/AppliedPlan",
      QueryAppliedPlanRequestSchema,
      { name: "v2" },
      QueryAppliedPlanResponseSchema,
    );
    expect(done.height).toBe(BigInt(planHeight));
    const before = await queryApp(
      v2.node,
      "/sdk.upgrade.v1beta1.Query/AppliedPlan",
      QueryAppliedPlanRequestSchema,
      { name: "v2" },
      QueryAppliedPlanResponseSchema,
      planHeight - 1,
    );
    expect(before.height).toBe(0n);
    const current = await queryApp(
      v2.node,
      "/sdk.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      {},
      QueryCurrentPlanResponseSchema,
    );
    expect(current.plan).toBeUndefined();
    const versions = await queryApp(
      v2.node,
      "/sdk.upgrade.v1beta1.Query/ModuleVersions",
      QueryModuleVersionsRequestSchema,
      {},
      QueryModuleVersionsResponseSchema,
    );
    expect(versions.moduleVersions.map((m) => m.name)).toEqual(["auth", "bank", "gov", "staking", "upgrade"]);
    expect(v2.node.app.info().appVersion).toBe(1);
    await v2.close();

    // The old binary after the upgrade refuses to run (downgrade detection), and hands the applied plan, kept whole,
    // to its supervisor again: the binary the chain runs now.
    rmSync(infoPath);
    const old = await open(h.home);
    await expect(old.node.producer.produce()).rejects.toThrow(
      "wrong app version, upgrade handler is missing for v2 upgrade plan",
    );
    expect(JSON.parse(readFileSync(infoPath, "utf8"))).toMatchObject({
      name: "v2",
      height: planHeight,
      info: '{"binaries":{}}',
    });
  }, 30_000);

  it("refuses a binary that carries the handler before the plan height", async () => {
    const h = setup();
    const v1 = await open(h.home);
    await v1.node.producer.produce();
    const signer = new TxSigner(alice, 0n, h.chainId);
    await passProposal(v1.node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV, plan: { name: "v2", height: 100n } }),
    ]);
    await v1.close();
    const early = await open(h.home, V2);
    await expect(early.node.producer.produce()).rejects.toThrow(
      'BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary',
    );
  }, 30_000);

  it("cancels a plan through gov, and skips a plan whose height is in --unsafe-skip-upgrades", async () => {
    const h = setup();
    const v1 = await open(h.home);
    await v1.node.producer.produce();
    const signer = new TxSigner(alice, 0n, h.chainId);
    await passProposal(v1.node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV, plan: { name: "v2", height: 100n } }),
    ]);
    const cancelled = await passProposal(v1.node, signer, [
      anyOf(MsgCancelUpgradeSchema, { authority: GOV }),
    ]);
    expect(cancelled.status).toBe(ProposalStatus.PASSED);
    const none = await queryApp(
      v1.node,
      "/sdk.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      {},
      QueryCurrentPlanResponseSchema,
    );
    expect(none.plan).toBeUndefined();

    const planHeight = v1.node.store.latestHeight + 6;
    await passProposal(v1.node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV, plan: { name: "v2", height: BigInt(planHeight) } }),
    ]);
    await v1.close();
    const skipping = await open(h.home, TEST_DEFINITION, [planHeight]);
    while (skipping.node.store.latestHeight < planHeight + 1) await skipping.node.producer.produce();
    expect(existsSync(join(h.home, "data", "upgrade-info.json"))).toBe(false);
  }, 30_000);

  it("rejects upgrade messages outside governance, and fails a proposal whose message fails", async () => {
    const h = setup();
    const v1 = await open(h.home);
    await v1.node.producer.produce();
    const signer = new TxSigner(alice, 0n, h.chainId);
    // Signed by alice as authority: the ante accepts her signature, the upgrade module refuses her.
    const direct = await v1.node.mempool.add(
      await signer.sign([
        anyOf(MsgSoftwareUpgradeSchema, { authority: alice.address, plan: { name: "x", height: 50n } }),
      ]),
    );
    expect(direct.code).toBe(0);
    const b = await v1.node.producer.produce();
    expect(b.txResults[0].code).toBe(7);
    expect(b.txResults[0].codespace).toBe("upgrade");
    expect(b.txResults[0].log).toContain(`expected ${GOV} got ${alice.address}`);
    // A proposal whose message is signed by someone else than gov is refused at submission.
    const wrongSigner = await v1.node.mempool.add(
      await signer.sign([
        anyOf(MsgSubmitProposalSchema, {
          messages: [
            anyOf(MsgSendSchema, {
              fromAddress: alice.address,
              toAddress: GOV,
              amount: [{ denom: "stake", amount: "1" }],
            }),
          ],
          initialDeposit: [{ denom: "stake", amount: "1000" }],
          proposer: alice.address,
          title: "t",
          summary: "s",
        }),
      ]),
    );
    expect(wrongSigner.code).toBe(0);
    const b2 = await v1.node.producer.produce();
    expect(b2.txResults[0].log).toContain("expected gov account as only signer for proposal message");
    // A plan in the past passes the vote but fails on execution, writing nothing.
    const failed = await passProposal(v1.node, signer, [
      anyOf(MsgSoftwareUpgradeSchema, { authority: GOV, plan: { name: "late", height: 2n } }),
    ]);
    expect(failed.status).toBe(ProposalStatus.FAILED);
    expect(failed.failedReason).toContain("upgrade cannot be scheduled in the past");
    const none = await queryApp(
      v1.node,
      "/sdk.upgrade.v1beta1.Query/CurrentPlan",
      QueryCurrentPlanRequestSchema,
      {},
      QueryCurrentPlanResponseSchema,
    );
    expect(none.plan).toBeUndefined();
  }, 30_000);
});

describe("rescheduling and cancelling through overlapping proposals", () => {
  it("a new plan moves the height; a cancel submitted while the upgrade is still voting removes it", async () => {
    const h = makeTestHome({
      accounts: [{ account: alice, coins: "10000000000stake" }],
      validator: { account: alice, stake: 1_000_000n },
      govPeriodMs: 1000,
    });
    const node = await ChainNode.open(
      { home: h.home, definition: TEST_DEFINITION },
      { logger: silentLogger },
    );
    try {
      await node.producer.produce();
      const signer = new TxSigner(alice, 0n, h.chainId);
      const first = node.store.latestHeight + 8;
      await passProposal(node, signer, [
        anyOf(MsgSoftwareUpgradeSchema, {
          authority: GOV_ADDRESS,
          plan: { name: "v2", height: BigInt(first) },
        }),
      ]);
      const later = node.store.latestHeight + 40;
      await passProposal(node, signer, [
        anyOf(MsgSoftwareUpgradeSchema, {
          authority: GOV_ADDRESS,
          plan: { name: "v2", height: BigInt(later) },
        }),
      ]);
      const plan = await queryApp(
        node,
        "/sdk.upgrade.v1beta1.Query/CurrentPlan",
        QueryCurrentPlanRequestSchema,
        {},
        QueryCurrentPlanResponseSchema,
      );
      expect(plan.plan?.height).toBe(BigInt(later));
      // Past the first height: no halt, the plan was delayed.
      while (node.store.latestHeight < first + 1) await node.producer.produce();

      // Rule 4: the upgrade proposal is still voting when the cancel proposal is submitted; the cancel's voting
      // period ends later, so the cancel wins.
      const submit = async (msg: ReturnType<typeof anyOf>) => {
        const res = await node.mempool.add(
          await signer.sign([
            anyOf(MsgSubmitProposalSchema, {
              messages: [msg],
              initialDeposit: [{ denom: "stake", amount: "1000" }],
              proposer: alice.address,
              title: "t",
              summary: "s",
            }),
          ]),
        );
        expect(res.code, res.log).toBe(0);
        const b = await node.producer.produce();
        const e = b.txResults[0].events.find((x) => x.type === "submit_proposal")!;
        const id = BigInt(e.attributes.find((a) => a.key === "proposal_id")!.value);
        await node.mempool.add(
          await signer.sign([
            anyOf(MsgVoteSchema, { proposalId: id, voter: alice.address, option: VoteOption.YES }),
          ]),
        );
        await node.producer.produce();
        return id;
      };
      const third = node.store.latestHeight + 60;
      await submit(
        anyOf(MsgSoftwareUpgradeSchema, {
          authority: GOV_ADDRESS,
          plan: { name: "v3", height: BigInt(third) },
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      await submit(anyOf(MsgCancelUpgradeSchema, { authority: GOV_ADDRESS }));
      await new Promise((r) => setTimeout(r, 1300));
      await node.producer.produce();
      await new Promise((r) => setTimeout(r, 400));
      await node.producer.produce();
      const none = await queryApp(
        node,
        "/sdk.upgrade.v1beta1.Query/CurrentPlan",
        QueryCurrentPlanRequestSchema,
        {},
        QueryCurrentPlanResponseSchema,
      );
      expect(none.plan).toBeUndefined();
    } finally {
      await node.close();
      h.cleanup();
    }
  }, 30_000);
});
