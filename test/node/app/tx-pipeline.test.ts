import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { BaseAccountSchema } from "@chaind/proto/sdk/auth/v1beta1/auth_pb";
import {
  QueryAccountRequestSchema,
  QueryAccountResponseSchema,
} from "@chaind/proto/sdk/auth/v1beta1/query_pb";
import {
  QueryAllBalancesRequestSchema,
  QueryAllBalancesResponseSchema,
} from "@chaind/proto/sdk/bank/v1beta1/query_pb";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { TxRawSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { signTxDirect, type UnsignedTxParts } from "../../../node/src/client/direct-signing.js";
import { makeTestHome, TEST_DEFINITION, type TestAccount, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");

function sendParts(
  from: TestAccount,
  to: string,
  amount: string,
  fee = "200",
  gas = 200_000n,
): UnsignedTxParts {
  const msg = create(MsgSendSchema, {
    fromAddress: from.address,
    toAddress: to,
    amount: [{ denom: "stake", amount }],
  });
  return {
    messages: [
      create(AnySchema, { typeUrl: "/sdk.bank.v1beta1.MsgSend", value: toBinary(MsgSendSchema, msg) }),
    ],
    fee: { amount: fee === "0" ? [] : [{ denom: "stake", amount: fee }], gasLimit: gas },
  };
}

describe("tx pipeline", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;

  beforeEach(async () => {
    home = makeTestHome({ accounts: [{ account: alice, coins: "1000000stake" }] });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
  });

  afterEach(async () => {
    await node.close();
    home.cleanup();
  });

  async function balances(address: string, height = 0): Promise<Record<string, string>> {
    const req = toBinary(QueryAllBalancesRequestSchema, create(QueryAllBalancesRequestSchema, { address }));
    const res = await node.app.query("/sdk.bank.v1beta1.Query/AllBalances", req, height);
    const out: Record<string, string> = {};
    for (const c of fromBinary(QueryAllBalancesResponseSchema, res.value).balances) out[c.denom] = c.amount;
    return out;
  }

  async function account(address: string) {
    const req = toBinary(QueryAccountRequestSchema, create(QueryAccountRequestSchema, { address }));
    const res = await node.app.query("/cosmos.auth.v1beta1.Query/Account", req);
    const any = fromBinary(QueryAccountResponseSchema, res.value).account!;
    return fromBinary(BaseAccountSchema, any.value);
  }

  it("moves funds with a signed send and charges the fee", async () => {
    const acc = await account(alice.address);
    const tx = await signTxDirect(
      sendParts(alice, bob.address, "1000"),
      [alice.signer(acc.accountNumber, 0n)],
      home.chainId,
    );
    const check = await node.mempool.add(tx);
    expect(check.code, check.log).toBe(0);
    const block = await node.producer.produce();
    expect(block.txResults).toHaveLength(1);
    expect(block.txResults[0].code, block.txResults[0].log).toBe(0);
    expect(block.txResults[0].gasUsed).toBeGreaterThan(0n);
    expect(await balances(bob.address)).toEqual({ stake: "1000" });
    expect(await balances(alice.address)).toEqual({ stake: String(1_000_000 - 1000 - 200) });
    expect((await account(alice.address)).sequence).toBe(1n);
    const transfer = block.txResults[0].events.find(
      (e) => e.type === "transfer" && e.attributes.some((a) => a.value === bob.address),
    );
    expect(transfer).toBeDefined();
  });

  it("keeps old balances readable at old heights", async () => {
    const acc = await account(alice.address);
    await node.mempool.add(
      await signTxDirect(
        sendParts(alice, bob.address, "5"),
        [alice.signer(acc.accountNumber, 0n)],
        home.chainId,
      ),
    );
    const b2 = await node.producer.produce();
    expect(await balances(bob.address, b2.height - 1)).toEqual({});
    expect(await balances(bob.address, b2.height)).toEqual({ stake: "5" });
  });

  it("rejects a bad signature with code 4 and keeps running", async () => {
    const acc = await account(alice.address);
    const tx = fromBinary(
      TxRawSchema,
      await signTxDirect(
        sendParts(alice, bob.address, "1"),
        [alice.signer(acc.accountNumber, 0n)],
        home.chainId,
      ),
    );
    tx.signatures[0] = new Uint8Array(tx.signatures[0]);
    tx.signatures[0][5] ^= 0xff;
    const res = await node.mempool.add(toBinary(TxRawSchema, tx));
    expect(res.code).toBe(4);
    expect(res.codespace).toBe("sdk");
    expect(res.log).toContain(
      `signature verification failed; please verify account number (${acc.accountNumber}) and chain-id (test-chain)`,
    );
    expect((await node.producer.produce()).height).toBe(2);
  });

  it("rejects a wrong chain id with code 4", async () => {
    const acc = await account(alice.address);
    const tx = await signTxDirect(
      sendParts(alice, bob.address, "1"),
      [alice.signer(acc.accountNumber, 0n)],
      "other-chain",
    );
    const res = await node.mempool.add(tx);
    expect(res.code).toBe(4);
    expect(res.log).toContain("chain-id (test-chain)");
  });

  it("rejects a wrong sequence with code 32", async () => {
    const acc = await account(alice.address);
    const res = await node.mempool.add(
      await signTxDirect(
        sendParts(alice, bob.address, "1"),
        [alice.signer(acc.accountNumber, 7n)],
        home.chainId,
      ),
    );
    expect(res.code).toBe(32);
    expect(res.log).toBe("account sequence mismatch, expected 0, got 7: incorrect account sequence");
  });

  it("fails a send beyond the balance with code 5 while fee and sequence stick", async () => {
    const acc = await account(alice.address);
    await node.mempool.add(
      await signTxDirect(
        sendParts(alice, bob.address, "999999999"),
        [alice.signer(acc.accountNumber, 0n)],
        home.chainId,
      ),
    );
    const block = await node.producer.produce();
    expect(block.txResults[0].code).toBe(5);
    expect(block.txResults[0].log).toContain("insufficient funds");
    expect(await balances(alice.address)).toEqual({ stake: String(1_000_000 - 200) });
    expect(await balances(bob.address)).toEqual({});
    expect((await account(alice.address)).sequence).toBe(1n);
  });

  it("rejects malformed bytes with code 2", async () => {
    for (const bytes of [
      new Uint8Array([0xff, 0xff, 0xff]),
      new Uint8Array([0x22, 0x01, 0x00]),
      new Uint8Array(),
    ]) {
      const res = await node.mempool.add(bytes);
      expect(res.code).toBe(2);
      expect(res.codespace).toBe("sdk");
    }
    expect((await node.producer.produce()).height).toBe(2);
  });

  it("rejects an account that does not exist with code 9", async () => {
    const stranger = testAccount("stranger");
    const res = await node.mempool.add(
      await signTxDirect(sendParts(stranger, bob.address, "1"), [stranger.signer(0n, 0n)], home.chainId),
    );
    expect(res.code).toBe(9);
    expect(res.log).toContain(`${stranger.address} does not exist`);
  });
});
