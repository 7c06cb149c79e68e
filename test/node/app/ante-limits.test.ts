import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import {
  QueryBalanceRequestSchema,
  QueryBalanceResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { afterEach, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect, type UnsignedTxParts } from "../../../node/src/client/direct-signing.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");

function send(opts: { fee: string; gas?: bigint; memo?: string; timeoutHeight?: bigint }): UnsignedTxParts {
  const msg = create(MsgSendSchema, {
    fromAddress: alice.address,
    toAddress: bob.address,
    amount: [{ denom: "stake", amount: "1" }],
  });
  return {
    messages: [
      create(AnySchema, { typeUrl: "/sdk.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, msg) }),
    ],
    memo: opts.memo,
    timeoutHeight: opts.timeoutHeight,
    fee: {
      amount: opts.fee === "0" ? [] : [{ denom: "stake", amount: opts.fee }],
      gasLimit: opts.gas ?? 100_000n,
    },
  };
}

/** Alice's committed stake. */
async function balance(node: ChainNode): Promise<bigint> {
  const req = toBinary(
    QueryBalanceRequestSchema,
    create(QueryBalanceRequestSchema, { address: alice.address, denom: "stake" }),
  );
  const res = await node.app.query("/sdk.bank.v1beta1.Query/Balance", req);
  return BigInt(fromBinary(QueryBalanceResponseSchema, res.value).balance?.amount ?? "0");
}

describe("ante limits", () => {
  let node: ChainNode | undefined;
  let cleanup: (() => void) | undefined;
  afterEach(async () => {
    await node?.close();
    cleanup?.();
  });

  async function open(minGasPrices: string) {
    const home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneApp: (c) => {
        c.minimumGasPrices = minGasPrices;
      },
    });
    cleanup = home.cleanup;
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    return { node, chainId: home.chainId };
  }

  it("an operator's explicit 0stake takes txs without fees (only an empty value is refused, by start)", async () => {
    const { node, chainId } = await open("0stake");
    const free = await node.mempool.add(
      await signTxDirect(send({ fee: "0" }), [alice.signer(0n, 0n)], chainId),
    );
    expect(free.code, free.log).toBe(0);
    // A zero coin is a zero fee, as in the SDK (CosmJS and Keplr send "0stake" for no fee): nothing is charged.
    const zeroCoin = send({ fee: "0" });
    zeroCoin.fee.amount = [{ denom: "stake", amount: "0" }];
    const before = await balance(node);
    const coin = await node.mempool.add(await signTxDirect(zeroCoin, [alice.signer(0n, 1n)], chainId));
    expect(coin.code, coin.log).toBe(0);
    const block = await node.producer.produce();
    expect(block.txResults.map((r) => r.code)).toEqual([0, 0]);
    // Two sends of 1stake, no fee.
    expect(await balance(node)).toBe(before - 2n);
  });

  it("refuses fees under the node's min-gas-prices in CheckTx with code 13, and takes enough", async () => {
    const { node, chainId } = await open("0.01stake");
    // 100000 gas at 0.01stake needs 1000stake.
    const low = await node.mempool.add(
      await signTxDirect(send({ fee: "999" }), [alice.signer(0n, 0n)], chainId),
    );
    expect(low.code).toBe(13);
    expect(low.log).toBe("insufficient fees; got: 999stake required: 1000stake: insufficient fee");
    const none = await node.mempool.add(
      await signTxDirect(send({ fee: "0" }), [alice.signer(0n, 0n)], chainId),
    );
    expect(none.code).toBe(13);
    const ok = await node.mempool.add(
      await signTxDirect(send({ fee: "1000" }), [alice.signer(0n, 0n)], chainId),
    );
    expect(ok.code, ok.log).toBe(0);
    const block = await node.producer.produce();
    expect(block.txResults.map((r) => r.code)).toEqual([0]);
  });

  it("refuses a memo over 256 characters with code 12", async () => {
    const { node, chainId } = await open("");
    const res = await node.mempool.add(
      await signTxDirect(send({ fee: "10", memo: "m".repeat(257) }), [alice.signer(0n, 0n)], chainId),
    );
    expect(res.code).toBe(12);
    expect(res.log).toContain("maximum number of characters is 256 but received 257 characters");
  });

  it("refuses a tx whose timeout height has passed with code 30", async () => {
    const { node, chainId } = await open("");
    await node.producer.produce();
    const res = await node.mempool.add(
      await signTxDirect(send({ fee: "10", timeoutHeight: 1n }), [alice.signer(0n, 0n)], chainId),
    );
    expect(res.code).toBe(30);
    expect(res.log).toContain("block height: 3, timeout height: 1");
  });
});
