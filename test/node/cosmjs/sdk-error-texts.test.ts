import { silentLogger } from "@chaind/core/logger";
import { Secp256k1Wallet } from "@cosmjs/amino";
import { DirectSecp256k1Wallet, type OfflineSigner } from "@cosmjs/proto-signing";
import { BroadcastTxError, SigningStargateClient, type StdFee } from "@cosmjs/stargate";
import { TxRaw } from "cosmjs-types/cosmos/tx/v1beta1/tx";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import type { NodeServer } from "../../../node/src/server/node-server.js";
import { startRpcServer } from "../../../node/src/server/rpc/rpc-server.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../helpers/test-home.js";

const alice = testAccount("alice");
const bob = testAccount("bob");

/** The test home's min gas price (0.0001stake) times this gas is 20stake. */
const GAS = "200000";
const FEE: StdFee = { amount: [{ denom: "stake", amount: "2000" }], gas: GAS };

// Texts of Cosmos SDK 0.50's x/auth/ante (sigverify.go, validator_tx_fee.go), as clients and scripts match them,
// for txs CosmJS signs with real keys.
describe("SDK 0.50's error texts for bad signatures and fees", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let server: NodeServer;

  /** CheckTx's raw log for a tx CosmJS signs with `signer`, the sign doc's chain id and fee as given. */
  async function refusal(signer: OfflineSigner, chainId: string, fee: StdFee, sequence = 0): Promise<string> {
    const client = await SigningStargateClient.connectWithSigner(server.address, signer);
    try {
      const msg = {
        typeUrl: "/cosmos.bank.v1beta1.MsgSend",
        value: {
          fromAddress: alice.address,
          toAddress: bob.address,
          amount: [{ denom: "stake", amount: "1" }],
        },
      };
      const raw = await client.sign(alice.address, [msg], fee, "", {
        accountNumber: 0n,
        sequence,
        chainId,
      });
      const error = await client.broadcastTxSync(TxRaw.encode(raw).finish()).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(BroadcastTxError);
      return (error as BroadcastTxError).log ?? "";
    } finally {
      client.disconnect();
    }
  }

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [{ account: alice, coins: "1000000stake" }],
      tuneNode: (c) => {
        c.rpc.laddr = "tcp://127.0.0.1:0";
      },
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    server = (await startRpcServer(node, { logger: silentLogger }))!;
    // CosmJS's status check wants a latest app hash: block 1's header carries genesis's empty one.
    await node.producer.produce();
    await node.producer.produce();
  });
  afterAll(async () => {
    await server?.close();
    await node?.close();
    home?.cleanup();
  });

  it("a direct signature that fails names the account number and chain id, then the verifier's reason", async () => {
    const wallet = await DirectSecp256k1Wallet.fromKey(alice.priv, "sdk");
    expect(await refusal(wallet, "another-chain", FEE)).toBe(
      `signature verification failed; please verify account number (0) and chain-id (${home.chainId}): (unable to verify single signer signature): unauthorized`,
    );
  });

  it("an amino JSON signature that fails names the sequence too: its sign bytes carry it", async () => {
    const wallet = await Secp256k1Wallet.fromKey(alice.priv, "sdk");
    expect(await refusal(wallet, "another-chain", FEE)).toBe(
      `signature verification failed; please verify account number (0), sequence (0) and chain-id (${home.chainId}): unauthorized`,
    );
    // The account's sequence, as the SDK prints it, once the account has sent a tx.
    const client = await SigningStargateClient.connectWithSigner(server.address, wallet);
    try {
      const sent = await client.sign(
        alice.address,
        [
          {
            typeUrl: "/cosmos.bank.v1beta1.MsgSend",
            value: {
              fromAddress: alice.address,
              toAddress: bob.address,
              amount: [{ denom: "stake", amount: "1" }],
            },
          },
        ],
        FEE,
        "",
        { accountNumber: 0n, sequence: 0, chainId: home.chainId },
      );
      expect((await node.mempool.add(TxRaw.encode(sent).finish())).code).toBe(0);
      await node.producer.produce();
    } finally {
      client.disconnect();
    }
    expect(await refusal(wallet, "another-chain", FEE, 1)).toBe(
      `signature verification failed; please verify account number (0), sequence (1) and chain-id (${home.chainId}): unauthorized`,
    );
  });

  it("a zero fee under min-gas-prices gets the insufficient-fees text, the fee printed as sent", async () => {
    const wallet = await DirectSecp256k1Wallet.fromKey(alice.priv, "sdk");
    // Alice sent one tx above: the fee is checked only once the sequence is right.
    const sequence = 1;
    // No coins: the SDK prints an empty Coins as "".
    expect(await refusal(wallet, home.chainId, { amount: [], gas: GAS }, sequence)).toBe(
      "insufficient fees; got:  required: 20stake: insufficient fee",
    );
    // A zero coin, as CosmJS and Keplr send a zero fee: a zero fee too, not a malformed one.
    expect(
      await refusal(wallet, home.chainId, { amount: [{ denom: "stake", amount: "0" }], gas: GAS }, sequence),
    ).toBe("insufficient fees; got: 0stake required: 20stake: insufficient fee");
  });
});
