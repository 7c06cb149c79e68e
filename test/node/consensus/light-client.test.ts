import { create } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { CommitSchema, HeaderSchema } from "@chaind/proto/tendermint/types/types_pb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ChainNode, EMBEDDED_VOTING_POWER } from "../../../node/src/chain/chain-node.js";
import { LightClientError, verifyHeader } from "../../../node/src/consensus/light-client.js";
import { generateEd25519Key } from "../../../node/src/crypto/ed25519.js";
import { makeTestHome, TEST_DEFINITION } from "../helpers/test-home.js";

/** A light client's checks of the embedded engine's blocks: each rule, and what breaks it. */
describe("light-client verification of a header and its commit", () => {
  const h = makeTestHome();
  let node: ChainNode;
  let args: Parameters<typeof verifyHeader>[0];

  beforeAll(async () => {
    node = await ChainNode.open({ home: h.home, definition: TEST_DEFINITION }, { logger: silentLogger });
    for (let i = 0; i < 3; i++) await node.producer.produce();
    const header = (await node.blocks.meta(2))!.header!;
    const commit = (await node.blocks.block(3))!.lastCommit!;
    const validators = [{ pubKey: node.signer.pubKey, votingPower: EMBEDDED_VOTING_POWER }];
    args = { chainId: node.chainId, header, commit, validators, trusted: validators };
  });
  afterAll(async () => {
    await node.close();
    h.cleanup();
  });

  it("accepts a block of the chain, signed by its validator", () => {
    verifyHeader(args);
  });

  it("refuses a header changed under its commit (an app hash raised)", () => {
    const header = create(HeaderSchema, { ...args.header, appHash: new Uint8Array(32).fill(1) });
    expect(() => verifyHeader({ ...args, header })).toThrow(
      /the commit signs block [0-9A-F]+, but the header hashes to/,
    );
  });

  it("refuses a forged signature, another chain, and validators that are not the header's", () => {
    const sig = args.commit.signatures[0];
    const forged = create(CommitSchema, {
      ...args.commit,
      signatures: [{ ...sig, signature: sig.signature.map((b, i) => (i === 0 ? b ^ 1 : b)) }],
    });
    expect(() => verifyHeader({ ...args, commit: forged })).toThrow(
      /signature of validator [0-9A-F]+ does not verify/,
    );
    expect(() => verifyHeader({ ...args, chainId: "other-chain" })).toThrow("the header is of chain");
    const stranger = [{ pubKey: generateEd25519Key().pubKey, votingPower: 1n }];
    expect(() => verifyHeader({ ...args, validators: stranger })).toThrow(/not the header's validator set/);
  });

  it("refuses a header no trusted validator signed", () => {
    const stranger = [{ pubKey: generateEd25519Key().pubKey, votingPower: 1n }];
    expect(() => verifyHeader({ ...args, trusted: stranger })).toThrow(
      /trusted validators with 0 of 1 voting power signed the commit: not more than 1\/3/,
    );
    expect(() =>
      verifyHeader({ ...args, commit: create(CommitSchema, { ...args.commit, signatures: [] }) }),
    ).toThrow(LightClientError);
  });
});
