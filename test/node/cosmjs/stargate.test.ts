import { randomBytes } from "node:crypto";
import { create, toBinary } from "@bufbuild/protobuf";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import {
  GasPrice,
  QueryClient,
  SigningStargateClient,
  StargateClient,
  setupStakingExtension,
} from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
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
  let api: string;
  let wallet: DirectSecp256k1HdWallet;
  let address: string;
  const recipient = testAccount("recipient").address;

  beforeAll(async () => {
    wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: "sdk" });
    [{ address }] = await wallet.getAccounts();
    home = makeTestHome({
      chainId: "cosmjs-1",
      accounts: [{ account: { address } as TestAccount, coins: "50000000stake" }],
      tuneApp: (c) => {
        c.api.enable = true;
      },
      tuneNode: (c) => {
        c.rpc.laddr = "tcp://127.0.0.1:0";
        c.consensus.timeoutCommitMs = 200;
      },
    });
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    api = (await node.waitFor(/\bapi listening address=(\S+)/))[1].replace(/^tcp:/, "http:");
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
    // CosmJS 0.39 gives the account number as a bigint.
    expect(account).toMatchObject({ address, accountNumber: 0n, sequence: 0, pubkey: null });
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

  it("MsgCreateValidator from CosmJS: commission rates in the SDK's LegacyDec wire form, reported as sent", async () => {
    const client = await SigningStargateClient.connectWithSigner(rpc, wallet, {
      gasPrice: GasPrice.fromString("0.025stake"),
    });
    // The operator address: the same key bytes under the validator prefix.
    const [{ address: operator }] = await (
      await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: "sdkvaloper" })
    ).getAccounts();
    const pubkey = {
      typeUrl: "/cosmos.crypto.ed25519.PubKey",
      value: toBinary(PubKeySchema, create(PubKeySchema, { key: randomBytes(32) })),
    };
    const createValidator = (rate: string, maxRate: string, maxChangeRate: string) => ({
      typeUrl: "/cosmos.staking.v1beta1.MsgCreateValidator",
      value: {
        description: { moniker: "cosmjs", identity: "", website: "", securityContact: "", details: "" },
        // CosmJS sends LegacyDec fields as the SDK does: the decimal scaled by 10^18, as digits.
        commission: { rate, maxRate, maxChangeRate },
        minSelfDelegation: "1",
        delegatorAddress: "",
        validatorAddress: "",
        pubkey,
        value: { denom: "stake", amount: "1000000" },
      },
    });
    const over = createValidator("300000000000000000", "200000000000000000", "10000000000000000");
    over.value.validatorAddress = operator;
    const refused = await client.signAndBroadcast(address, [over], "auto").catch((e: Error) => e);
    expect(String(refused)).toMatch(/commission cannot be more than the max rate/);

    const msg = createValidator("100000000000000000", "200000000000000000", "10000000000000000");
    msg.value.validatorAddress = operator;
    const result = await client.signAndBroadcast(address, [msg], "auto");
    expect(result.code, result.rawLog).toBe(0);

    const comet = await Comet38Client.connect(rpc);
    const staking = QueryClient.withExtensions(comet, setupStakingExtension).staking;
    const { validator } = await staking.validator(operator);
    expect(validator?.commission?.commissionRates).toEqual({
      rate: "100000000000000000",
      maxRate: "200000000000000000",
      maxChangeRate: "10000000000000000",
    });
    expect(validator?.delegatorShares).toBe("1000000000000000000000000");
    comet.disconnect();
    const rest = (await (await fetch(`${api}/cosmos/staking/v1beta1/validators/${operator}`)).json()) as {
      validator: { commission: { commission_rates: unknown }; delegator_shares: string };
    };
    expect(rest.validator.commission.commission_rates).toEqual({
      rate: "0.100000000000000000",
      max_rate: "0.200000000000000000",
      max_change_rate: "0.010000000000000000",
    });
    expect(rest.validator.delegator_shares).toBe("1000000.000000000000000000");
    client.disconnect();
  });
});
