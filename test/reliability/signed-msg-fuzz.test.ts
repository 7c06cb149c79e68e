import { create, type DescMessage, fromBinary, getOption, type Message, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { MsgMultiSendSchema, MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import {
  MsgDepositSchema,
  MsgSubmitProposalSchema,
  MsgVoteSchema,
  MsgVoteWeightedSchema,
} from "@chaind/proto/sdk/gov/v1/tx_pb";
import { signer } from "@chaind/proto/sdk/msg/v1/msg_pb";
import { MsgDelegateSchema, MsgUndelegateSchema } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../node/src/app/address-codec.js";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { signTxDirect } from "../../node/src/client/direct-signing.js";
import { moduleAddress } from "../../node/src/crypto/address.js";
import { replayFromGenesis } from "../node/helpers/replay-chain.js";
import { anyOf } from "../node/helpers/signed-tx.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { fuzzAssert } from "./fuzz-assert.js";
import { jsFault } from "./js-fault-text.js";
import { mutateOneField, randomMessage } from "./random-message.js";
import { soakSize } from "./soak-size.js";

const alice = testAccount("alice");
const bob = testAccount("bob");
const val = testAccount("val");
const RUNS = soakSize("msg_fuzz", 100);
const codec = new AddressCodec("sdk");
const valoper = new AddressCodec("sdkvaloper").toString(codec.fromString(val.address, "val"));
const gov = codec.toString(moduleAddress("gov"));

/** Strings the random messages draw from: real addresses, denoms and amounts, valid and not. */
const addresses = [alice.address, alice.address, bob.address, valoper, gov];
const amounts = ["1", "1000", "0", "-5", "1.5", "99999999999999999999999999999999999999", ""];
const STRINGS = {
  byField: {
    denom: ["stake", "stake", "stake", "", "ibc/ABC", "STAKE"],
    amount: amounts,
    weight: ["1", "0.5", "1.000000000000000000", "2", "-1", ""],
    validator_address: [valoper, valoper, alice.address, ""],
    validator_src_address: [valoper, ""],
    validator_dst_address: [valoper, ""],
    type_url: ["/sdk.bank.v1beta1.MsgSend", "/cosmos.bank.v1beta1.MsgSend", "/nope", ""],
  },
  any: [...addresses, ...amounts, "stake", "v2", "title", "/sdk.bank.v1beta1.MsgSend"],
};

/** Puts alice in the message's signer fields (string ones), so most random messages get past the ante checks. */
function signedByAlice(desc: DescMessage, msg: Message): Message {
  for (const name of getOption(desc, signer)) {
    const field = desc.fields.find((f) => f.name === name);
    if (field?.fieldKind === "scalar")
      (msg as unknown as Record<string, unknown>)[field.localName] = alice.address;
  }
  return msg;
}

/**
 * Correctly signed txs carrying valid messages with one or two fields broken, and random messages of every
 * registered Msg type (random amounts, denoms, addresses, nested Any): CheckTx and DeliverTx refuse them with
 * coded errors or run them, never a JS exception turned into code 1 ("undefined" codespace), and the chain keeps
 * making blocks and accepting honest txs.
 */
describe("signed txs with random messages", () => {
  let home: ReturnType<typeof makeTestHome>;
  let node: ChainNode;
  let sequence = 0n;
  const seen = { checked: 0, delivered: 0, succeeded: 0 };

  beforeAll(async () => {
    home = makeTestHome({
      accounts: [
        { account: alice, coins: "1000000000000stake" },
        { account: bob, coins: "1000stake" },
      ],
      validator: { account: val, stake: 1_000_000n },
      govPeriodMs: 60_000,
    });
    node = await ChainNode.open({ home: home.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
  });
  afterAll(async () => {
    await node?.close();
    home?.cleanup();
  });

  const signed = (messages: ReturnType<typeof anyOf>[]) =>
    signTxDirect(
      { messages, fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 2_000_000n } },
      [alice.signer(0n, sequence)],
      home.chainId,
    );

  /** Valid messages of the common types; each case breaks one field of one of them. */
  const templates = () => {
    const coin = (amount: string) => [{ denom: "stake", amount }];
    return [
      anyOf(MsgSendSchema, { fromAddress: alice.address, toAddress: bob.address, amount: coin("3") }),
      anyOf(MsgMultiSendSchema, {
        inputs: [{ address: alice.address, coins: coin("4") }],
        outputs: [
          { address: bob.address, coins: coin("1") },
          { address: alice.address, coins: coin("3") },
        ],
      }),
      anyOf(MsgDelegateSchema, {
        delegatorAddress: alice.address,
        validatorAddress: valoper,
        amount: coin("100")[0],
      }),
      anyOf(MsgUndelegateSchema, {
        delegatorAddress: alice.address,
        validatorAddress: valoper,
        amount: coin("1")[0],
      }),
      anyOf(MsgSubmitProposalSchema, {
        messages: [anyOf(MsgSendSchema, { fromAddress: gov, toAddress: bob.address, amount: coin("1") })],
        initialDeposit: coin("1000"),
        proposer: alice.address,
        title: "t",
        summary: "s",
      }),
      anyOf(MsgVoteSchema, { proposalId: 1n, voter: alice.address, option: 1 }),
      anyOf(MsgVoteWeightedSchema, {
        proposalId: 1n,
        voter: alice.address,
        options: [
          { option: 1, weight: "0.5" },
          { option: 3, weight: "0.5" },
        ],
      }),
      anyOf(MsgDepositSchema, { proposalId: 1n, depositor: alice.address, amount: coin("10") }),
    ];
  };

  /** Signs and sends one message; when CheckTx takes it, makes its block. Coded results only, at both steps. */
  const deliverOne = async (any: ReturnType<typeof anyOf>, what: string) => {
    const check = await node.mempool.add(await signed([any]));
    seen.checked++;
    expect(check.codespace, `${what}: ${check.log}`).not.toBe("undefined");
    expect(jsFault(check.log), what).toBeUndefined();
    if (check.code !== 0) return;
    sequence++;
    const r = (await node.producer.produce()).txResults[0];
    seen.delivered++;
    if (r.code === 0) seen.succeeded++;
    expect(r.codespace, `${what} delivered: ${r.code} ${r.log}`).not.toBe("undefined");
    if (r.code !== 0) expect(r.log.length, what).toBeGreaterThan(0);
    expect(jsFault(r.log), what).toBeUndefined();
  };

  it("runs the valid templates, then refuses or runs each with one field broken, with coded results", async () => {
    const valid = templates();
    for (const any of valid) {
      const before = seen.succeeded;
      await deliverOne(any, any.typeUrl);
      expect(seen.succeeded, `template ${any.typeUrl} should succeed`).toBe(before + 1);
    }
    const byUrl = new Map(
      [...node.app.registrar.msgs.values()].map((m) => [`/${m.input.typeName}`, m.input]),
    );
    await fuzzAssert(
      { suite: "signed messages", property: "valid messages with one or two fields broken", runs: RUNS },
      fc.asyncProperty(
        fc.nat({ max: valid.length - 1 }),
        fc.integer({ min: 1, max: 2 }),
        fc.gen(),
        async (i, n, g) => {
          const desc = byUrl.get(valid[i].typeUrl);
          if (!desc) throw new Error(`no Msg route for ${valid[i].typeUrl}`);
          let msg = fromBinary(desc, valid[i].value);
          for (let k = 0; k < n; k++) msg = mutateOneField(g, desc, msg, STRINGS);
          const any = create(AnySchema, { typeUrl: valid[i].typeUrl, value: toBinary(desc, msg) });
          await deliverOne(any, `${valid[i].typeUrl} ${Buffer.from(any.value).toString("hex")}`);
        },
      ),
    );
  });

  it("refuses or runs every random message with a coded result, block after block", async () => {
    const msgs = [...node.app.registrar.msgs.values()];
    await fuzzAssert(
      { suite: "signed messages", property: "random messages of every Msg type", runs: RUNS },
      fc.asyncProperty(fc.nat(), fc.gen(), async (i, g) => {
        const method = msgs[i % msgs.length];
        const random = randomMessage(g, method.input, STRINGS);
        const msg = g(fc.nat, { max: 9 }) > 0 ? signedByAlice(method.input, random) : random;
        const any = create(AnySchema, {
          typeUrl: `/${g(fc.boolean) ? method.input.typeName : method.input.typeName.replace(/^sdk\./, "cosmos.")}`,
          value: toBinary(method.input, msg),
        });
        await deliverOne(any, `${any.typeUrl} ${Buffer.from(any.value).toString("hex")}`);
      }),
    );
    // The chain still takes an honest tx.
    const honest = await signed([
      anyOf(MsgSendSchema, {
        fromAddress: alice.address,
        toAddress: bob.address,
        amount: [{ denom: "stake", amount: "1" }],
      }),
    ]);
    expect((await node.mempool.add(honest)).code).toBe(0);
    expect((await node.producer.produce()).txResults.map((r) => r.code)).toEqual([0]);
    expect(seen.delivered).toBeGreaterThan(0);
  });

  it("replays every block of that chain on a fresh home to the same app hash (bad input is deterministic)", async () => {
    const replayed = await replayFromGenesis(node, home.home);
    expect(replayed.length).toBe(node.store.latestHeight);
    expect(replayed.filter((r) => r.stored !== r.replayed)).toEqual([]);
  });
});
