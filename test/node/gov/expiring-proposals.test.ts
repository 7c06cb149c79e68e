import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { QueryProposalsRequestSchema, QueryProposalsResponseSchema } from "@chaind/proto/sdk/gov/v1/query_pb";
import { MsgSubmitProposalSchema } from "@chaind/proto/sdk/gov/v1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";

import { StakingKeys } from "../../../node/src/modules/staking/staking-keys.js";
import type { IterateOptions } from "../../../node/src/store/multi-store.js";
import { AppChain } from "../helpers/app-chain.js";
import { GOV_ADDRESS, queryApp } from "../helpers/gov-flow.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { testAccount } from "../helpers/test-home.js";

const attacker = testAccount("attacker");
const validator = testAccount("validator");
/** The test genesis' deposit and voting periods. */
const PERIOD_MS = 60_000;
/** Proposals a tx carries: the most CheckTx takes in one tx is 256 messages. */
const PER_TX = 200;
/** Gas each proposal's submission takes, with room to spare; fees follow at the testnet price (0.0001). */
const GAS_PER_PROPOSAL = 100_000n;
/** The least deposit a proposal may carry: min_deposit_ratio (0.01, as Cosmos SDK 0.50) of the test genesis' 1000stake. */
const LEAST_DEPOSIT = [{ denom: "stake", amount: "10" }];

/** Counts Buffer.compare calls (key comparisons, which the store's branches make) while `run` runs. */
async function keyComparisons(run: () => Promise<unknown>): Promise<number> {
  const compare = Buffer.compare;
  let n = 0;
  Buffer.compare = (a, b) => {
    n++;
    return compare(a, b);
  };
  try {
    await run();
  } finally {
    Buffer.compare = compare;
  }
  return n;
}

// Issue 29, point 7: with a zero minimum initial deposit ratio (the Cosmos default), proposals cost their fees
// and, since min_deposit_ratio, a refundable 1% of the minimum deposit each; every proposal whose deposit
// period ends in a block is dropped (its deposit refunded) in that block's EndBlock. EndBlock iterated the
// block's store branch once per dropped proposal, and each iteration sorted every write the branch held:
// 12,800 proposals took 31 s in one block, 15,360 took 67 s. The attack at CI's size: waves of 1,000 and
// 2,000 proposals through signed txs, each wave dropped in one block.
describe("proposals expiring together: EndBlock work grows with their number, not its square", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /** A chain, the attacker's signer, and block times: one second on, or `at` (ms) when given. */
  async function openChain(): Promise<{ chain: AppChain; signer: TxSigner; clock: (at?: number) => Date }> {
    const chain = await AppChain.open({
      accounts: [{ account: attacker, coins: "100000000000stake" }],
      validator: { account: validator, stake: 1_000_000n },
      govPeriodMs: PERIOD_MS,
    });
    cleanups.push(() => chain.close());
    const { accountNumber } = await chain.account(attacker.address);
    let now = Date.now();
    return {
      chain,
      signer: new TxSigner(attacker, accountNumber, chain.chainId),
      clock: (at?: number) => {
        now = at ?? now + 1000;
        return new Date(now);
      },
    };
  }

  /** Submits `n` proposals in one block at `time`, each tx checked first as a node's mempool checks it. */
  async function submit(
    chain: AppChain,
    signer: TxSigner,
    n: number,
    time: Date,
    initialDeposit = LEAST_DEPOSIT,
  ): Promise<void> {
    const txs = [];
    for (let sent = 0; sent < n; sent += PER_TX) {
      const count = Math.min(PER_TX, n - sent);
      const msgs = Array.from({ length: count }, () =>
        anyOf(MsgSubmitProposalSchema, {
          messages: [
            anyOf(MsgSendSchema, {
              fromAddress: GOV_ADDRESS,
              toAddress: attacker.address,
              amount: [{ denom: "stake", amount: "1" }],
            }),
          ],
          initialDeposit,
          proposer: attacker.address,
          title: "t",
          summary: "s",
        }),
      );
      const gas = GAS_PER_PROPOSAL * BigInt(count);
      const tx = await signer.sign(msgs, String(gas / 10_000n), gas);
      const checked = await chain.check(tx);
      expect(checked.code, checked.log).toBe(0);
      txs.push(tx);
    }
    for (const r of await chain.deliver(txs, time)) expect(r.code, r.log).toBe(0);
  }

  async function proposalCount(chain: AppChain): Promise<bigint> {
    const r = await queryApp(
      chain.node,
      "/sdk.gov.v1.Query/Proposals",
      QueryProposalsRequestSchema,
      { pagination: { limit: 1n, countTotal: true } },
      QueryProposalsResponseSchema,
    );
    return r.pagination?.total ?? 0n;
  }

  it("ends a deposit period of a second and a half after a second and a half, not in the block that submits", async () => {
    const chain = await AppChain.open({
      accounts: [{ account: attacker, coins: "100000000000stake" }],
      validator: { account: validator, stake: 1_000_000n },
      govPeriodMs: 1500,
    });
    cleanups.push(() => chain.close());
    const { accountNumber } = await chain.account(attacker.address);
    const signer = new TxSigner(attacker, accountNumber, chain.chainId);
    const t = Date.now();
    await submit(chain, signer, 1, new Date(t));
    const r = await queryApp(
      chain.node,
      "/sdk.gov.v1.Query/Proposals",
      QueryProposalsRequestSchema,
      {},
      QueryProposalsResponseSchema,
    );
    expect(r.proposals).toHaveLength(1);
    const p = r.proposals[0];
    const ms = (ts: typeof p.submitTime) => Number(ts!.seconds) * 1000 + Math.floor(ts!.nanos / 1e6);
    expect(ms(p.depositEndTime) - ms(p.submitTime)).toBe(1500);
    // The whole period on, the proposal is dropped: not before.
    await chain.block([], new Date(t + 1000));
    expect(await proposalCount(chain)).toBe(1n);
    await chain.block([], new Date(t + 1600));
    expect(await proposalCount(chain)).toBe(0n);
  });

  it("drops 1,000 and then 2,000 proposals in one block each, comparing keys linearly, and blocks go on", async () => {
    const { chain, signer, clock } = await openChain();
    const small = 1000;
    const large = 2000;
    const t1 = clock();
    await submit(chain, signer, small, t1);
    const t2 = clock();
    await submit(chain, signer, large, t2);
    expect(await proposalCount(chain)).toBe(BigInt(small + large));
    // As Cosmos SDK 0.50 bounds it, a proposal carries at least 1% of the minimum deposit (min_deposit_ratio).
    const free = await signer.sign([
      anyOf(MsgSubmitProposalSchema, {
        messages: [
          anyOf(MsgSendSchema, { fromAddress: GOV_ADDRESS, toAddress: attacker.address, amount: [] }),
        ],
        proposer: attacker.address,
        title: "t",
        summary: "s",
      }),
    ]);
    const [refused] = await chain.deliver([free], clock());
    expect(refused.log).toBe(
      "received  but need at least one of the following: 10stake: minimum deposit is too small",
    );

    const dropped = async (after: Date) => {
      let events: { type: string }[] = [];
      const compares = await keyComparisons(async () => {
        events = (await chain.block([], clock(after.getTime() + PERIOD_MS + 1))).events;
      });
      return { compares, count: events.filter((e) => e.type === "inactive_proposal").length };
    };
    const first = await dropped(t1);
    expect(first.count).toBe(small);
    expect(await proposalCount(chain)).toBe(BigInt(large));
    const second = await dropped(t2);
    expect(second.count).toBe(large);
    expect(await proposalCount(chain)).toBe(0n);

    // Key comparisons are the work a branch does to merge its writes into an iteration: a few per dropped
    // proposal at most, at either size. Sorting the branch on every drop took thousands per proposal, and
    // twice as many per proposal at twice the size.
    expect(first.compares / small).toBeLessThan(20);
    expect(second.compares / large).toBeLessThan(20);

    // The chain goes on: the next blocks commit, and so does a tx in them.
    const height = chain.node.store.latestHeight;
    await submit(chain, signer, 1, clock());
    await chain.deliver([], clock());
    expect(chain.node.store.latestHeight).toBe(height + 2);
    expect(await proposalCount(chain)).toBe(1n);
  }, 120_000);

  // The same shape in the other EndBlock loop: each proposal whose vote ended was tallied over a fresh read of
  // every validator (a full scan per proposal). Validators are read once a block now.
  it("tallies 20 proposals whose votes end together over one read of the validators", async () => {
    const { chain, signer, clock } = await openChain();
    const proposals = 20;
    const start = clock();
    // The test genesis' minimum deposit: each proposal goes straight to its vote.
    await submit(chain, signer, proposals, start, [{ denom: "stake", amount: "1000" }]);
    const state = chain.node.store;
    const iterate = state.iterate.bind(state);
    const validatorPrefix = StakingKeys.validator.prefix;
    let validatorScans = 0;
    state.iterate = (store: string, opts: IterateOptions & { height?: number } = {}) => {
      if (store === "staking" && opts.prefix && Buffer.from(opts.prefix).equals(Buffer.from(validatorPrefix)))
        validatorScans++;
      return iterate(store, opts);
    };
    const { events } = await chain.block([], clock(start.getTime() + PERIOD_MS + 1));
    state.iterate = iterate;
    const tallied = events.filter((e) => e.type === "active_proposal");
    expect(tallied).toHaveLength(proposals);
    // The tallies' one read, and the block's own (the validator set it hands consensus): not one per proposal.
    expect(validatorScans).toBe(2);
    expect(await proposalCount(chain)).toBe(BigInt(proposals));
  });
});
