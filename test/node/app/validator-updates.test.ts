import { MsgDelegateSchema } from "@chaind/proto/sdk/staking/v1beta1/tx_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { validatorUpdates } from "../../../node/src/app/consensus-validators.js";
import { validatorSetHash } from "../../../node/src/consensus/validator-set-hash.js";
import { AppChain } from "../helpers/app-chain.js";
import { anyOf, TxSigner } from "../helpers/signed-tx.js";
import { testAccount } from "../helpers/test-home.js";

const val = testAccount("validator");
const alice = testAccount("alice");
const valoper = new AddressCodec("sdkvaloper").toString(new AddressCodec("sdk").fromString(val.address));

/** Voting power is bonded tokens / 10^6 (the SDK's power reduction), in both engines, and changes reach consensus. */
describe("the validator set consensus runs with", () => {
  let chain: AppChain;
  beforeAll(async () => {
    chain = await AppChain.open({
      accounts: [
        { account: val, coins: "100000000000stake" },
        { account: alice, coins: "100000000000stake" },
      ],
      validator: { account: val, stake: 5_000_000n },
    });
  });
  afterAll(() => chain.close());

  it("is staking's bonded validators with tokens / 10^6 as power; the embedded engine's headers hash it", async () => {
    const { node } = chain;
    expect(node.app.knownValidators).toEqual([{ pubKey: node.signer.pubKey, power: 5n }]);
    expect(node.votingPower()).toBe(5n);
    const made = await node.producer.produce();
    expect(Buffer.from(made.block.header!.validatorsHash)).toEqual(
      Buffer.from(validatorSetHash([{ pubKey: node.signer.pubKey, votingPower: 5n }])),
    );
  });

  it("a delegation changes the validator's power, and the block says so in its validator updates", async () => {
    const delegate = anyOf(MsgDelegateSchema, {
      delegatorAddress: alice.address,
      validatorAddress: valoper,
      amount: { denom: "stake", amount: "3000000" },
    });
    const tx = await new TxSigner(alice, 1n, chain.chainId).sign([delegate]);
    const block = await chain.block([tx]);
    expect(block.txResults[0].code, block.txResults[0].log).toBe(0);
    expect(block.validatorUpdates).toEqual([{ pubKey: chain.node.signer.pubKey, power: 8n }]);
    expect(chain.node.votingPower()).toBe(8n);
    // A block that changes nothing updates nothing.
    expect((await chain.block([])).validatorUpdates).toEqual([]);
  });

  it("updates list new and changed validators with their power and those gone with power 0, in key order", () => {
    const k = (n: number) => new Uint8Array(32).fill(n);
    expect(
      validatorUpdates(
        [
          { pubKey: k(3), power: 5n },
          { pubKey: k(1), power: 2n },
          { pubKey: k(2), power: 7n },
        ],
        [
          { pubKey: k(2), power: 7n },
          { pubKey: k(3), power: 6n },
          { pubKey: k(4), power: 1n },
        ],
      ),
    ).toEqual([
      { pubKey: k(1), power: 0n },
      { pubKey: k(3), power: 6n },
      { pubKey: k(4), power: 1n },
    ]);
  });
});
