import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { silentLogger } from "@chaind/core/logger";
import { BlockIDSchema } from "@chaind/proto/tendermint/types/types_pb";
import { ed25519 } from "@noble/curves/ed25519.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { DoubleSignError, SignState, SignStep } from "../../../node/src/consensus/sign-state.js";
import { precommitSignBytes } from "../../../node/src/consensus/vote-sign-bytes.js";
import { makeTestHome, TEST_DEFINITION } from "../helpers/test-home.js";

const sign = (tag: string) => (b: Uint8Array) => new Uint8Array([...new TextEncoder().encode(tag), b.length]);

describe("the validator's sign state (CometBFT FilePV's rules and file)", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "sign-state-"));
    path = join(dir, "priv_validator_state.json");
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("records each signature in CometBFT's JSON before handing it out", async () => {
    const s = SignState.open(path);
    expect(s.lastSigned.height).toBe(0n);
    const bytes = Uint8Array.of(1, 2, 0xab);
    const sig = await s.sign(5n, 0, SignStep.Precommit, bytes, sign("a"));
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({
      height: "5",
      round: 0,
      step: 3,
      signature: Buffer.from(sig).toString("base64"),
      signbytes: "0102AB",
    });
    // A fresh reader sees the same record, as CometBFT's FilePV would.
    expect(SignState.open(path).lastSigned).toMatchObject({ height: 5n, round: 0, step: 3 });
  });

  it("gives the recorded signature for the same bytes, and refuses other bytes or a step back", async () => {
    const s = SignState.open(path);
    const first = await s.sign(5n, 0, SignStep.Precommit, Uint8Array.of(1), sign("a"));
    expect(await s.sign(5n, 0, SignStep.Precommit, Uint8Array.of(1), sign("b"))).toEqual(first);
    await expect(s.sign(5n, 0, SignStep.Precommit, Uint8Array.of(2), sign("b"))).rejects.toThrow(
      /conflicting data/,
    );
    await expect(s.sign(4n, 0, SignStep.Precommit, Uint8Array.of(1), sign("b"))).rejects.toThrow(
      new RegExp(`refusing to sign at height 4 round 0 step 3: ${path} records height 5`),
    );
    await expect(s.sign(5n, 0, SignStep.Prevote, Uint8Array.of(1), sign("b"))).rejects.toBeInstanceOf(
      DoubleSignError,
    );
    // Nothing refused was written.
    expect(JSON.parse(readFileSync(path, "utf8")).signbytes).toBe("01");
    // Moving on is fine.
    await s.sign(6n, 0, SignStep.Precommit, Uint8Array.of(9), sign("c"));
    expect(JSON.parse(readFileSync(path, "utf8")).height).toBe("6");
  });

  it("names the file when it cannot be read", () => {
    writeFileSync(path, '{"height": 5}');
    expect(() => SignState.open(path)).toThrow(
      `cannot read the validator's sign state ${path}: height must be`,
    );
    writeFileSync(path, "not json");
    expect(() => SignState.open(path)).toThrow(`cannot read the validator's sign state ${path}`);
  });

  it("refuses a node whose blocks end below what it signed", () => {
    writeFileSync(path, JSON.stringify({ height: "9", round: 0, step: 3 }));
    expect(() => SignState.open(path).checkNotAhead(8)).toThrow(
      /signed a block at height 9 .* end at height 8/,
    );
    SignState.open(path).checkNotAhead(9);
  });
});

describe("precommit sign bytes", () => {
  it("are CometBFT v0.38's VoteSignBytes", () => {
    // Computed with CometBFT v0.38.26's types.VoteSignBytes for the same vote.
    const blockId = create(BlockIDSchema, {
      hash: new Uint8Array(32),
      partSetHeader: { total: 1, hash: new Uint8Array(32).map((_, i) => i + 4) },
    });
    const bytes = precommitSignBytes("test-chain", 7n, 0, blockId, {
      seconds: 1700000000n,
      nanos: 123456789,
    } as never);
    expect(Buffer.from(bytes).toString("hex")).toBe(
      "6e080211070000000000000022480a2000000000000000000000000000000000000000000000000000000000000000001224080112200405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232a0b0880e2cfaa0610959aef3a320a746573742d636861696e",
    );
  });
});

describe("the embedded engine signs each block once it is stored", () => {
  it("records block N's precommit by the time N is committed; block N+1's commit carries that signature", async () => {
    const h = makeTestHome();
    try {
      const node = await ChainNode.open(
        { home: h.home, definition: TEST_DEFINITION },
        { logger: silentLogger },
      );
      try {
        const first = await node.producer.produce();
        const recorded = JSON.parse(readFileSync(join(h.home, "data", "priv_validator_state.json"), "utf8"));
        expect(recorded.height).toBe(String(first.height));
        const meta = await node.blocks.meta(first.height);
        const expected = precommitSignBytes(
          node.chainId,
          BigInt(first.height),
          0,
          meta!.blockId!,
          meta!.header!.time!,
        );
        expect(recorded.signbytes).toBe(Buffer.from(expected).toString("hex").toUpperCase());

        const second = await node.producer.produce();
        const commitSig = second.block.lastCommit!.signatures[0];
        expect(Buffer.from(commitSig.signature).toString("base64")).toBe(recorded.signature);
        expect(ed25519.verify(commitSig.signature, expected, node.signer.pubKey)).toBe(true);
      } finally {
        await node.close();
      }
    } finally {
      h.cleanup();
    }
  });
});
