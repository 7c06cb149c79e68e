import { create } from "@bufbuild/protobuf";
import { HeaderSchema } from "@chaind/proto/tendermint/types/types_pb";
import { describe, expect, it } from "vitest";
import { headerHash } from "../../../node/src/consensus/header-hash.js";
import { validatorSetHash } from "../../../node/src/consensus/validator-set-hash.js";

const b = (n: number, v: number) => new Uint8Array(n).map((_, i) => (v + i) & 0xff);
const hex = (u: Uint8Array) => Buffer.from(u).toString("hex");

// The expected values were computed with CometBFT v0.38.26's types.Header.Hash and ValidatorSet.Hash for the
// same fields: a light client checks our blocks and commits the way it checks CometBFT's.
describe("CometBFT's block and validator-set hashes", () => {
  const header = create(HeaderSchema, {
    version: { block: 11n, app: 2n },
    chainId: "test-chain",
    height: 42n,
    time: { seconds: 1700000000n, nanos: 123456789 },
    lastBlockId: { hash: b(32, 1), partSetHeader: { total: 1, hash: b(32, 2) } },
    lastCommitHash: b(32, 3),
    dataHash: b(32, 4),
    validatorsHash: b(32, 5),
    nextValidatorsHash: b(32, 6),
    consensusHash: b(32, 7),
    appHash: b(32, 8),
    lastResultsHash: b(32, 9),
    evidenceHash: b(32, 10),
    proposerAddress: b(20, 11),
  });

  it("hashes a header field by field", () => {
    expect(hex(headerHash(header))).toBe("5d38d36d036cf69ab3468e62152c9b1e664d2a8f0216894ef73e39e7cfb801e0");
  });

  it("hashes a chain's first header, whose last block id and commit hash are empty", () => {
    const first = create(HeaderSchema, {
      ...header,
      lastBlockId: undefined,
      lastCommitHash: new Uint8Array(),
    });
    expect(hex(headerHash(first))).toBe("0c5d46d87d09351a72f546075fe899f3bc39273fec22ab56cdbf5b828b17d796");
  });

  it("hashes a validator set from each key and power", () => {
    expect(hex(validatorSetHash([{ pubKey: b(32, 12), votingPower: 100000n }]))).toBe(
      "7c60ea41ac6a96bf4a27364edcc3a64df8224338103bcebd82d31add13564e8d",
    );
  });
});
