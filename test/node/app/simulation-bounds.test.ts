import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import {
  QueryAllBalancesRequestSchema,
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import {
  DEFAULT_SIMULATION_GAS_LIMIT,
  MAX_TX_MSGS,
  SIMULATION_CONCURRENCY,
  simulationLimits,
} from "../../../node/src/app/simulation-limits.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import type { AppConfig } from "../../../node/src/config/app-config.js";
import { readGenesis, writeGenesis } from "../../../node/src/config/genesis.js";
import { HomeLayout } from "../../../node/src/config/home-layout.js";
import { isChainError } from "../../../node/src/errors/chain-error.js";
import { GrpcCode } from "../../../node/src/errors/grpc-code.js";
import { anyOf } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, type TestAccount, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");
const carol = testAccount("carol");

/** Realistic fees: 0.025stake per unit of gas, as a node with minimum-gas-prices set asks. */
const feeFor = (gas: bigint) => ({
  amount: [{ denom: "stake", amount: String((gas * 25n) / 1000n) }],
  gasLimit: gas,
});

const sends = (from: TestAccount, n: number, amount = "1", to = bob.address) =>
  Array.from({ length: n }, () =>
    anyOf(MsgSendSchema, { fromAddress: from.address, toAddress: to, amount: [{ denom: "stake", amount }] }),
  );

describe("simulation beside block production, and its bounds", () => {
  let node: ChainNode | undefined;
  let home: ReturnType<typeof makeTestHome> | undefined;

  afterEach(async () => {
    await node?.close();
    home?.cleanup();
    node = undefined;
    home = undefined;
  });

  /** A node with a first block, an optional block gas limit in genesis and app.toml tweaks. */
  async function start(opts: { maxGas?: string; tuneApp?: (c: AppConfig) => void } = {}): Promise<ChainNode> {
    home = makeTestHome({ accounts: [{ account: alice, coins: "1000000000stake" }], tuneApp: opts.tuneApp });
    if (opts.maxGas) {
      const file = new HomeLayout(home.home).genesisJson;
      const g = readGenesis(file);
      g.consensus.params.block.max_gas = opts.maxGas;
      writeGenesis(file, g);
    }
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    return node;
  }

  const sign = (msgs: ReturnType<typeof sends>, sequence: bigint, gas = 200_000n) =>
    signTxDirect({ messages: msgs, fee: feeFor(gas) }, [alice.signer(0n, sequence)], home!.chainId);

  /**
   * Holds every read of a pinned height (what a simulation reads; blocks and CheckTx read the unpinned latest
   * state) until `release`. `reached` settles at the first such read.
   */
  function holdPinnedReads(n: ChainNode) {
    const get = n.store.get.bind(n.store);
    let release!: () => void;
    let reached!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const first = new Promise<void>((r) => {
      reached = r;
    });
    n.store.get = async (store, key, height) => {
      if (height !== undefined) {
        reached();
        await held;
      }
      return get(store, key, height);
    };
    return {
      reached: first,
      release: () => {
        n.store.get = get;
        release();
      },
    };
  }

  it("lets a block commit while a simulation is in the middle of its work, and answers for the height it started on", async () => {
    const n = await start();
    const balance = async (address: string) => {
      const req = toBinary(
        QueryBalanceRequestSchema,
        create(QueryBalanceRequestSchema, { address, denom: "stake" }),
      );
      const r = await n.app.query("/sdk.bank.v1beta1.Query/Balance", req);
      return BigInt(fromBinary(QueryBalanceResponseSchema, r.value).balance?.amount ?? "0");
    };
    const initial = await balance(alice.address);
    // Affordable at the height the simulation starts on; not after the block below spends most of it, which also
    // uses the same sequence.
    const simulated = await sign(sends(alice, 1, String(initial - 100_000n)), 0n);
    const spend = await sign(sends(alice, 1, String(initial / 2n), carol.address), 0n);

    const hold = holdPinnedReads(n);
    const simulation = n.app.simulate(simulated);
    await hold.reached;
    expect((await n.mempool.add(spend)).code).toBe(0);
    // Were simulation under the block lock again, this block could not be made until the simulation ended.
    const block = await n.producer.produce();
    expect(block.txResults.map((r) => r.code)).toEqual([0]);
    expect(n.store.latestHeight).toBe(block.height);
    hold.release();

    const { result } = await simulation;
    expect(result.code, result.log).toBe(0);
    expect(result.gasUsed).toBeGreaterThan(0n);
    // A simulation now, on the new height, fails both ways the block changed things.
    const now = (await n.app.simulate(simulated)).result;
    expect(now.code).not.toBe(0);
    expect(now.log).toMatch(/account sequence mismatch|insufficient funds/);
  });

  it("agrees with delivery on the gas of a normal tx and keeps nothing", async () => {
    const n = await start();
    const tx = await sign(sends(alice, 3, "10"), 0n);
    const sim = (await n.app.simulate(tx)).result;
    expect(sim.code, sim.log).toBe(0);
    expect(n.store.latestHeight).toBe(1);
    expect((await n.mempool.add(tx)).code).toBe(0);
    const delivered = (await n.producer.produce()).txResults[0];
    expect(delivered.code, delivered.log).toBe(0);
    expect(delivered.gasUsed).toBe(sim.gasUsed);
  });

  it("stops a simulation as soon as it passes the block's max_gas, naming that limit", async () => {
    const n = await start({ maxGas: "300000" });
    const small = (await n.app.simulate(await sign(sends(alice, 5), 0n))).result;
    expect(small.code, small.log).toBe(0);
    expect(small.gasUsed).toBeLessThan(300_000n);
    // 60 sends need about 700k gas: it stops at the first charge past 300k, not after running them all.
    const big = (await n.app.simulate(await sign(sends(alice, 60), 0n, 1_000_000n))).result;
    expect(big.code, big.log).toBe(11);
    expect(big.codespace).toBe("sdk");
    expect(big.log).toContain("out of gas in location");
    expect(big.log).toContain(
      "simulation gas limit (max_gas of the block in the genesis consensus params): 300000",
    );
    expect(big.gasUsed).toBeGreaterThan(300_000n);
    expect(big.gasUsed).toBeLessThan(310_000n);
  });

  it("takes the smaller of max_gas and app.toml's query-gas-limit", async () => {
    const n = await start({
      maxGas: "300000",
      tuneApp: (c) => {
        c.queryGasLimit = 200_000;
      },
    });
    const big = (await n.app.simulate(await sign(sends(alice, 60), 0n, 1_000_000n))).result;
    expect(big.code).toBe(11);
    expect(big.log).toContain("simulation gas limit (query-gas-limit in app.toml): 200000");
    expect(big.gasUsed).toBeLessThan(210_000n);
  });

  it("caps queries with query-gas-limit too, as Cosmos does", async () => {
    const n = await start({
      tuneApp: (c) => {
        c.queryGasLimit = 500;
      },
    });
    // An iteration over one balance costs a few hundred gas; a read costs 1000 flat.
    const all = toBinary(
      QueryAllBalancesRequestSchema,
      create(QueryAllBalancesRequestSchema, { address: alice.address }),
    );
    expect((await n.app.query("/sdk.bank.v1beta1.Query/AllBalances", all)).value.length).toBeGreaterThan(0);
    const one = toBinary(
      QueryBalanceRequestSchema,
      create(QueryBalanceRequestSchema, { address: alice.address, denom: "stake" }),
    );
    const err = await n.app.query("/sdk.bank.v1beta1.Query/Balance", one).catch((e: unknown) => e);
    expect(isChainError(err) && err.abciCode).toBe(11);
    expect((err as Error).message).toContain("query gas limit (query-gas-limit in app.toml): 500");
  });

  it("caps a simulation at the default when neither limit is set, and refuses a tx larger than max_tx_bytes", async () => {
    expect(simulationLimits({ blockMaxGas: "-1", queryGasLimit: 0, maxTxBytes: 1 }).gasLimit).toBe(
      DEFAULT_SIMULATION_GAS_LIMIT,
    );
    expect(simulationLimits({ blockMaxGas: "0", queryGasLimit: 0, maxTxBytes: 1 }).gasLimitName).toContain(
      "default",
    );
    // query-gas-limit = 0: no limit for queries, as in Cosmos; simulations still have the node's.
    const n = await start({
      tuneApp: (c) => {
        c.queryGasLimit = 0;
      },
    });
    // One message carrying just under 1 MiB of coins: its size alone costs 10 gas a byte, past the 10M default.
    const coins = Array.from({ length: 51_500 }, (_, i) => ({
      denom: `d${String(i).padStart(12, "0")}`,
      amount: "1",
    }));
    const msg = anyOf(MsgSendSchema, { fromAddress: alice.address, toAddress: bob.address, amount: coins });
    const huge = await sign([msg], 0n);
    expect(huge.length).toBeGreaterThan(DEFAULT_SIMULATION_GAS_LIMIT / 10);
    expect(huge.length).toBeLessThanOrEqual(n.nodeConfig.mempool.maxTxBytes);
    const r = (await n.app.simulate(huge)).result;
    expect(r.code, r.log).toBe(11);
    expect(r.log).toContain("out of gas in location: txSize");
    expect(r.log).toContain(`the node's default`);
    expect(r.log).toContain(`: ${DEFAULT_SIMULATION_GAS_LIMIT}`);

    const tooBig = new Uint8Array(n.nodeConfig.mempool.maxTxBytes + 1);
    const refused = (await n.app.simulate(tooBig)).result;
    expect(refused.code).toBe(21);
    expect(refused.log).toBe(
      `tx too large. Max size is ${n.nodeConfig.mempool.maxTxBytes}, but got ${tooBig.length}: tx too large`,
    );
  });

  it(`refuses a tx of more than ${MAX_TX_MSGS} messages in simulation and CheckTx, naming the limit`, async () => {
    const n = await start();
    const atLimit = (await n.app.simulate(await sign(sends(alice, MAX_TX_MSGS), 0n, 5_000_000n))).result;
    expect(atLimit.code, atLimit.log).toBe(0);
    const over = await sign(sends(alice, MAX_TX_MSGS + 1), 0n, 5_000_000n);
    const simulated = (await n.app.simulate(over)).result;
    expect(simulated.code).toBe(18);
    expect(simulated.gasUsed).toBe(0n);
    expect(simulated.log).toBe(
      `tx has ${MAX_TX_MSGS + 1} messages; this node accepts at most ${MAX_TX_MSGS} per tx: invalid request`,
    );
    const checked = await n.mempool.add(over);
    expect(checked.code).toBe(18);
    expect(checked.log).toBe(simulated.log);
    expect(n.mempool.size).toBe(0);
  });

  it("refuses simulations past the ones running and waiting, and serves them all once the line moves", async () => {
    const n = await start();
    const tx = await sign(sends(alice, 1), 0n);
    const { running, waiting } = SIMULATION_CONCURRENCY;
    const hold = holdPinnedReads(n);
    const admitted = Array.from({ length: running + waiting }, () => n.app.simulate(tx));
    expect(n.app.simulationLoad).toEqual({ running, waiting });
    const extra = await Promise.allSettled([n.app.simulate(tx), n.app.simulate(tx)]);
    for (const e of extra) {
      expect(e.status).toBe("rejected");
      const reason = (e as PromiseRejectedResult).reason;
      expect(isChainError(reason) && reason.grpcCode).toBe(GrpcCode.RESOURCE_EXHAUSTED);
      expect(reason.message).toBe(
        `too many simulations in flight (${running} running, ${waiting} waiting); try again shortly`,
      );
    }
    await hold.reached;
    hold.release();
    const results = await Promise.all(admitted);
    expect(results.map((r) => r.result.code)).toEqual(Array(running + waiting).fill(0));
    expect(n.app.simulationLoad).toEqual({ running: 0, waiting: 0 });
    expect((await n.app.simulate(tx)).result.code).toBe(0);
  });
});
