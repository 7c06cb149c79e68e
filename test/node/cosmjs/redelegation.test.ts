import { randomBytes } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import { Secp256k1HdWallet } from "@cosmjs/amino";
import { DirectSecp256k1HdWallet } from "@cosmjs/proto-signing";
import {
  GasPrice,
  QueryClient,
  SigningStargateClient,
  type StakingExtension,
  setupStakingExtension,
} from "@cosmjs/stargate";
import { Comet38Client } from "@cosmjs/tendermint-rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { NodeProcess } from "../helpers/chaind-process.js";
import { makeTestHome, type TestAccount, testAccount } from "../helpers/test-home.js";

const MNEMONIC =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const valoperOf = (address: string) =>
  new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(address));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** MsgBeginRedelegate from stock CosmJS 0.39, signed directly and in amino JSON, through the node's RPC. */
describe("redelegation from CosmJS: moves stake at once, recorded until the unbonding time ends", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: NodeProcess;
  let rpc: string;
  let address: string;
  let direct: SigningStargateClient;
  let amino: SigningStargateClient;
  let comet: Comet38Client;
  let staking: StakingExtension["staking"];
  const validator = testAccount("validator");
  const first = valoperOf(validator.address);
  let second: string;
  const redelegate = (src: string, dst: string, amount: string) => ({
    typeUrl: "/cosmos.staking.v1beta1.MsgBeginRedelegate",
    value: {
      delegatorAddress: address,
      validatorSrcAddress: src,
      validatorDstAddress: dst,
      amount: { denom: "stake", amount },
    },
  });

  beforeAll(async () => {
    const wallet = await DirectSecp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: "sdk" });
    [{ address }] = await wallet.getAccounts();
    home = makeTestHome({
      chainId: "redelegate-1",
      accounts: [
        { account: validator, coins: "1000000stake" },
        { account: { address } as TestAccount, coins: "50000000stake" },
      ],
      validator: { account: validator, stake: 600n },
      tuneNode: (c) => {
        c.consensus.timeoutCommitMs = 200;
      },
    });
    // Redelegations end 8 s after they begin, so the test sees them complete.
    const genesisPath = join(home.home, "config", "genesis.json");
    const genesis = JSON.parse(readFileSync(genesisPath, "utf8"));
    genesis.app_state.staking.params.unbonding_time = "8s";
    writeFileSync(genesisPath, JSON.stringify(genesis));
    node = new NodeProcess(home.home);
    rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
    await node.waitFor(/committed block .*height=2/);
    const gasPrice = GasPrice.fromString("0.025stake");
    const broadcastPollIntervalMs = 200;
    direct = await SigningStargateClient.connectWithSigner(rpc, wallet, {
      gasPrice,
      broadcastPollIntervalMs,
    });
    amino = await SigningStargateClient.connectWithSigner(
      rpc,
      await Secp256k1HdWallet.fromMnemonic(MNEMONIC, { prefix: "sdk" }),
      { gasPrice, broadcastPollIntervalMs },
    );
    comet = await Comet38Client.connect(rpc);
    staking = QueryClient.withExtensions(comet, setupStakingExtension).staking;

    // A second validator, operated by the same account, and a delegation to the first to move from.
    second = valoperOf(address);
    const made = await direct.signAndBroadcast(
      address,
      [
        {
          typeUrl: "/cosmos.staking.v1beta1.MsgCreateValidator",
          value: {
            description: { moniker: "second", identity: "", website: "", securityContact: "", details: "" },
            commission: { rate: "0", maxRate: "0", maxChangeRate: "0" },
            minSelfDelegation: "1",
            delegatorAddress: "",
            validatorAddress: second,
            pubkey: {
              typeUrl: "/cosmos.crypto.ed25519.PubKey",
              value: toBinary(PubKeySchema, create(PubKeySchema, { key: randomBytes(32) })),
            },
            value: { denom: "stake", amount: "1000" },
          },
        },
      ],
      "auto",
    );
    expect(made.code, made.rawLog).toBe(0);
    const delegated = await direct.delegateTokens(address, first, { denom: "stake", amount: "1000" }, "auto");
    expect(delegated.code, delegated.rawLog).toBe(0);
  });
  afterAll(async () => {
    comet?.disconnect();
    direct?.disconnect();
    amino?.disconnect();
    node.proc.kill("SIGTERM");
    await node.proc;
    home.cleanup();
  });

  it("signed directly and in amino JSON: shares move, two entries are recorded, and they complete", async () => {
    const moved = await direct.signAndBroadcast(address, [redelegate(first, second, "400")], "auto");
    expect(moved.code, moved.rawLog).toBe(0);
    const again = await amino.signAndBroadcast(address, [redelegate(first, second, "100")], "auto");
    expect(again.code, again.rawLog).toBe(0);

    expect((await staking.delegation(address, first)).delegationResponse?.balance?.amount).toBe("500");
    expect((await staking.delegation(address, second)).delegationResponse?.balance?.amount).toBe("1500");
    expect((await staking.validator(first)).validator?.tokens).toBe("1100");
    const { redelegationResponses } = await staking.redelegations(address, first, second);
    expect(redelegationResponses).toHaveLength(1);
    const [red] = redelegationResponses;
    expect(red.redelegation).toMatchObject({
      delegatorAddress: address,
      validatorSrcAddress: first,
      validatorDstAddress: second,
    });
    expect(red.entries.map((e) => [e.redelegationEntry?.initialBalance, e.balance])).toEqual([
      ["400", "400"],
      ["100", "100"],
    ]);
    expect(red.entries[0].redelegationEntry?.sharesDst).toBe("400000000000000000000");

    const deadline = Date.now() + 20_000;
    while ((await staking.redelegations(address, "", "")).redelegationResponses.length > 0) {
      expect(Date.now()).toBeLessThan(deadline);
      await sleep(200);
    }
    expect((await staking.delegation(address, second)).delegationResponse?.balance?.amount).toBe("1500");
  });

  it("refuses redelegating to the same validator, on from a validator still receiving, and a missing delegation", async () => {
    const code = async (msg: ReturnType<typeof redelegate>) =>
      direct
        .signAndBroadcast(address, [msg], { amount: [{ denom: "stake", amount: "10000" }], gas: "300000" })
        .then(
          (r) => `${r.code} ${r.rawLog}`,
          (e: Error) => e.message,
        );
    expect(await code(redelegate(first, first, "1"))).toMatch(/cannot redelegate to the same validator/);
    const moved = await direct.signAndBroadcast(address, [redelegate(first, second, "10")], "auto");
    expect(moved.code, moved.rawLog).toBe(0);
    expect(await code(redelegate(second, first, "10"))).toMatch(
      /redelegation to this validator already in progress; first redelegation to this validator must complete before next redelegation/,
    );
    const nowhere = valoperOf(testAccount("nobody").address);
    expect(await code(redelegate(first, nowhere, "1"))).toMatch(
      /redelegation destination validator not found/,
    );
  });
});
