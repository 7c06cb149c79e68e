import { create } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { RequestSchema } from "@chaind/proto/tendermint/abci/types_pb";
import { afterEach, describe, expect, it } from "vitest";
import { AbciApp } from "../../../node/src/abci/abci-app.js";
import type { AbciSnapshots } from "../../../node/src/abci/abci-snapshots.js";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { genesisHeader } from "../../../node/src/chain/genesis-record.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { readGenesis, writeGenesis } from "../../../node/src/config/genesis.js";
import { HomeLayout } from "../../../node/src/config/home-layout.js";
import { proposalTxs } from "../../../node/src/consensus/proposal-txs.js";
import { anyOf } from "../helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");

describe("a block's txs within max_bytes and max_gas", () => {
  it("passes over what does not fit and takes later txs that do, as the SDK's default proposal", () => {
    const tx = (n: number) => new Uint8Array(n).fill(n);
    const gas = new Map<number, bigint>([
      [10, 100n],
      [11, 250n],
      [12, 100n],
      [13, 1n],
    ]);
    const gasOf = (t: Uint8Array) => gas.get(t.length);
    const all = [tx(10), tx(11), tx(12), tx(13)];
    // Gas: 100 + (250 passed over) + 100 = 200, then 1 more: 201 <= 300.
    expect(proposalTxs(all, { maxBytes: 0, maxGas: 300n }, gasOf).map((t) => t.length)).toEqual([10, 12, 13]);
    // Bytes as the block's protobuf counts them: 10 + 2 per tx, so 12 + 13 = 25 leaves 11 + 2 out of 30.
    expect(proposalTxs(all, { maxBytes: 30, maxGas: -1n }, gasOf).map((t) => t.length)).toEqual([10, 11]);
    // Bytes that are no tx (no gas to read) are left out; the count caps too.
    expect(proposalTxs([tx(9), ...all], { maxBytes: 0, maxGas: 0n, maxTxs: 2 }, gasOf)).toEqual([
      tx(10),
      tx(11),
    ]);
  });

  describe("in both engines, from genesis block.max_gas", () => {
    let node: ChainNode | undefined;
    let home: ReturnType<typeof makeTestHome> | undefined;
    afterEach(async () => {
      await node?.close();
      home?.cleanup();
    });

    async function start(maxGas: string) {
      home = makeTestHome({ accounts: [{ account: alice, coins: "1000000000stake" }] });
      const file = new HomeLayout(home.home).genesisJson;
      const g = readGenesis(file);
      g.consensus.params.block.max_gas = maxGas;
      writeGenesis(file, g);
      node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
      await node.producer.produce();
      return { node, genesis: g };
    }

    const send = (sequence: bigint, gas: bigint) =>
      signTxDirect(
        {
          messages: [
            anyOf(MsgSendSchema, {
              fromAddress: alice.address,
              toAddress: bob.address,
              amount: [{ denom: "stake", amount: "1" }],
            }),
          ],
          fee: { amount: [{ denom: "stake", amount: "10000" }], gasLimit: gas },
        },
        [alice.signer(0n, sequence)],
        home!.chainId,
      );

    it("the embedded engine spreads txs over blocks; PrepareProposal for CometBFT keeps what fits", async () => {
      const { node, genesis } = await start("300000");
      const txs = [await send(0n, 200_000n), await send(1n, 200_000n)];
      for (const tx of txs) expect((await node.mempool.add(tx)).code).toBe(0);
      const first = node.store.latestHeight + 1;
      await node.producer.produce();
      expect((await node.blocks.block(first))?.data?.txs).toHaveLength(1);
      await node.producer.produce();
      expect((await node.blocks.block(first + 1))?.data?.txs).toHaveLength(1);

      const abci = new AbciApp({
        app: node.app,
        store: node.store,
        genesis: genesisHeader(genesis),
        minRetainBlocks: 0,
        onCommit: () => {},
        // PrepareProposal only: the snapshot connection is never asked.
        snapshots: {} as AbciSnapshots,
        onHalt: () => {},
        logger: silentLogger,
      });
      const answer = await abci.handle(
        create(RequestSchema, {
          value: {
            case: "prepareProposal",
            value: { maxTxBytes: 1_000_000n, txs: [...txs, Uint8Array.of(1, 2)] },
          },
        }),
      );
      expect(answer).toMatchObject({ case: "prepareProposal", value: { txs: [txs[0]] } });

      // A tx asking for more than a whole block holds is refused at once, as the SDK's ante handler does.
      const huge = await node.mempool.add(await send(2n, 300_001n));
      expect({ code: huge.code, log: huge.log }).toEqual({
        code: 41,
        log: "tx gas limit 300001 exceeds block max gas 300000: invalid gas limit",
      });
    });
  });
});
