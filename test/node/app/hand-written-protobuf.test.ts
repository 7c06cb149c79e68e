import { create, toBinary } from "@bufbuild/protobuf";
import { TxMsgDataSchema } from "@chaind/proto/sdk/base/abci/v1beta1/abci_pb";
import { SignDocSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { describe, expect, it } from "vitest";
import { encodeTxMsgData } from "../../../node/src/app/tx-msg-data.js";
import { directSignBytes } from "../../../node/src/modules/auth/direct-sign-doc.js";

/** Byte equality as one comparison: a deep equality on large arrays would go element by element. */
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const bytes = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
const LENGTHS = [0, 1, 127, 128, 300, 16383, 16384, 70000];
const NUMBERS = [0n, 1n, 127n, 128n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n + 1n, 2n ** 63n, 2n ** 64n - 1n];

describe("protobuf records written by hand", () => {
  it("SIGN_MODE_DIRECT sign bytes are protobuf-es' SignDoc", () => {
    const chains = ["", "chaind-1", "é-chain-ü", "x".repeat(200)];
    let i = 0;
    for (const body of LENGTHS)
      for (const auth of [0, 1, 200])
        for (const chainId of chains)
          for (const accountNumber of NUMBERS) {
            const b = bytes(body, i++);
            const a = bytes(auth, i++);
            const doc = create(SignDocSchema, { bodyBytes: b, authInfoBytes: a, chainId, accountNumber });
            expect(hex(directSignBytes(b, a, chainId, accountNumber))).toBe(
              hex(toBinary(SignDocSchema, doc)),
            );
          }
  });

  it("an account number protobuf-es refuses is refused the same way", () => {
    expect(() => directSignBytes(bytes(3, 1), bytes(3, 2), "c", 2n ** 64n)).toThrow();
    expect(() => directSignBytes(bytes(3, 1), bytes(3, 2), "c", -1n)).toThrow();
  });

  it("tx result data is protobuf-es' TxMsgData, empty responses included", () => {
    const urls = ["", "/sdk.bank.v1beta1.MsgSendResponse", "/é.Response", "/x".repeat(100)];
    const cases = [
      [],
      [{ typeUrl: "", value: new Uint8Array() }],
      ...urls.flatMap((typeUrl) => LENGTHS.map((n) => [{ typeUrl, value: bytes(n, n) }])),
      urls.map((typeUrl, i) => ({ typeUrl, value: bytes(LENGTHS[i * 2], i) })),
    ];
    for (const responses of cases)
      expect(hex(encodeTxMsgData(responses))).toBe(
        hex(toBinary(TxMsgDataSchema, create(TxMsgDataSchema, { msgResponses: responses }))),
      );
  });
});
