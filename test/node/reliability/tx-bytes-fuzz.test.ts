import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../../node/src/client/direct-signing.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");

describe("random and mutated tx bytes", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let valid: Uint8Array;

  beforeAll(async () => {
    home = makeTestHome({ accounts: [{ account: alice, coins: "1000000stake" }] });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    const msg = create(MsgSendSchema, {
      fromAddress: alice.address,
      toAddress: bob.address,
      amount: [{ denom: "stake", amount: "5" }],
    });
    valid = await signTxDirect(
      {
        messages: [
          create(AnySchema, { typeUrl: "/sdk.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, msg) }),
        ],
        fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n },
      },
      [alice.signer(0n, 0n)],
      home.chainId,
    );
  });
  afterAll(async () => {
    await node.close();
    home.cleanup();
  });

  const expectCleanRejection = async (bytes: Uint8Array) => {
    const res = await node.app.checkTx(bytes);
    expect(res.code).not.toBe(0);
    expect(res.codespace).not.toBe("");
    expect(res.log.length).toBeGreaterThan(0);
  };

  it("rejects random bytes with a coded error and never throws", async () => {
    await fc.assert(fc.asyncProperty(fc.uint8Array({ maxLength: 600 }), expectCleanRejection), {
      numRuns: 300,
    });
  });

  it("rejects every single-byte mutation and truncation of a signed tx", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat({ max: valid.length - 1 }),
        fc.integer({ min: 1, max: 255 }),
        fc.boolean(),
        async (pos, xor, truncate) => {
          const bytes = truncate ? valid.slice(0, pos) : Uint8Array.from(valid);
          if (!truncate) bytes[pos] ^= xor;
          await expectCleanRejection(bytes);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("leaves state untouched: the original tx is still accepted and executes after the barrage", async () => {
    const check = await node.mempool.add(valid);
    expect(check.code, check.log).toBe(0);
    const block = await node.producer.produce();
    expect(block.txResults.map((r) => r.code)).toEqual([0]);
  });
});
