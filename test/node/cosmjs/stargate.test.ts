import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import { GasPrice, SigningStargateClient, StargateClient } from "@cosmjs/stargate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeProcess } from "../helpers/chaind-process.js";
import { makeTestHome, type TestAccount, testAccount } from "../helpers/test-home.js";

// The BIP39 test vector mnemonic: a well-known key, funded in genesis.
const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";

describe("stock CosmJS against the node", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let rpc: string;
  let wallet: DirectSecp256k1HdWallet;
  let address: string;
  const recipient = testAccount("recipient").address;

  beforeAll(async () => {
    wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: "sdk" });
    [{ address }] = await wallet.getAccounts();
    home = makeTestHome({
      chainId: "cosmjs-1",
      accounts: [{ account: { address } as TestAccount, coins: "50000000stake" }],
      tuneNode: (c) => {
        c.rpc.laddr = "tcp://127.0.0.1:0";
        c.consensus.timeoutCommitMs = 200;
      },
    });
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2/);
  });
  afterAll(async () => {
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  it("StargateClient reads chain id, height, balances, account and block", async () => {
    const client = await StargateClient.connect(rpc);
    expect(await client.getChainId()).toBe("cosmjs-1");
    const height = await client.getHeight();
    expect(height).toBeGreaterThanOrEqual(2);
    expect(await client.getAllBalances(address)).toEqual([{ denom: "stake", amount: "50000000" }]);
    expect(await client.getBalance(address, "stake")).toEqual({ denom: "stake", amount: "50000000" });
    const account = await client.getAccount(address);
    expect(account).toMatchObject({ address, accountNumber: 0, sequence: 0, pubkey: null });
    expect(await client.getAccount(recipient)).toBeNull();
    const block = await client.getBlock(2);
    expect(block.header.chainId).toBe("cosmjs-1");
    expect(block.header.height).toBe(2);
    expect(block.id).toMatch(/^[0-9A-F]{64}$/);
    client.disconnect();
  });

  it("SigningStargateClient sends tokens with fee auto and sees the tx included", async () => {
    const client = await SigningStargateClient.connectWithSigner(rpc, wallet, {
      gasPrice: GasPrice.fromString("0.025stake"),
    });
    const result = await client.sendTokens(
      address,
      recipient,
      [{ denom: "stake", amount: "12345" }],
      "auto",
      "hi",
    );
    expect(result.code, result.rawLog).toBe(0);
    expect(result.height).toBeGreaterThan(0);
    expect(result.gasUsed).toBeGreaterThan(0n);
    expect(await client.getBalance(recipient, "stake")).toEqual({ denom: "stake", amount: "12345" });
    const found = await client.getTx(result.transactionHash);
    expect(found?.height).toBe(result.height);
    const bySender = await client.searchTx(`message.sender='${address}'`);
    expect(bySender.map((t) => t.hash)).toContain(result.transactionHash);
    const account = await client.getAccount(address);
    expect(account?.sequence).toBe(1);
    expect(account?.pubkey?.type).toBe("tendermint/PubKeySecp256k1");
    client.disconnect();
  });
});
