import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { replayFromGenesis } from "../helpers/replay-chain.js";
import { makeTestHome, TEST_DEFINITION, type TestAccount, testAccount } from "../helpers/test-home.js";

const users = ["alice", "bob", "carol"].map((n) => testAccount(n));

function send(from: TestAccount, to: TestAccount, amount: number) {
  const msg = create(MsgSendSchema, {
    fromAddress: from.address,
    toAddress: to.address,
    amount: [{ denom: "stake", amount: String(amount) }],
  });
  return {
    messages: [
      create(AnySchema, { typeUrl: "/sdk.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, msg) }),
    ],
    fee: { amount: [{ denom: "stake", amount: "10" }], gasLimit: 200_000n },
  };
}

describe("replay from genesis", () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it("re-executing the stored blocks on a fresh home gives the same app hash at every height", async () => {
    const source = makeTestHome({ accounts: users.map((account) => ({ account, coins: "1000000stake" })) });
    cleanups.push(source.cleanup);
    const node = await ChainNode.open(
      { home: source.home, definition: TEST_DEFINITION },
      { logger: silentLogger },
    );
    cleanups.push(() => node.close());
    const appHashes: string[] = [];
    const sequences = new Map<string, bigint>();
    // Random but seeded traffic: sends, failing sends (beyond balance) and empty blocks.
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let h = 1; h <= 12; h++) {
      const txCount = h === 1 ? 0 : rnd(4);
      for (let i = 0; i < txCount; i++) {
        const from = users[rnd(3)];
        const to = users[rnd(3)];
        const seq = sequences.get(from.address) ?? 0n;
        const accountNumber = BigInt(users.indexOf(from));
        const amount = rnd(5) === 0 ? 10_000_000 : 1 + rnd(1000);
        const res = await node.mempool.add(
          await signTxDirect(send(from, to, amount), [from.signer(accountNumber, seq)], source.chainId),
        );
        expect(res.code, res.log).toBe(0);
        sequences.set(from.address, seq + 1n);
      }
      const b = await node.producer.produce();
      appHashes.push(Buffer.from(b.appHash).toString("hex"));
    }

    const replayed = await replayFromGenesis(node, source.home);
    expect(replayed.map((r) => r.replayed)).toEqual(appHashes.map((h) => h.toUpperCase()));
    expect(replayed.filter((r) => r.stored !== r.replayed)).toEqual([]);
  });
});
