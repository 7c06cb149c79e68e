import { create, toBinary, toJson } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import { TxBodySchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { describe, expect, it } from "vitest";
import { fromProtoJson, PROTO_JSON_WRITE } from "../../../node/src/app/proto-json.js";
import { TEST_DEFINITION } from "../helpers/test-home.js";

const types = TEST_DEFINITION.assemble({ chainId: "t", bech32Prefix: "sdk", minGasPrices: "" }).types;

function body(ns: "sdk" | "cosmos") {
  const send = create(MsgSendSchema, {
    fromAddress: "a",
    toAddress: "b",
    amount: [{ denom: "stake", amount: "1" }],
  });
  const key = create(PubKeySchema, { key: new Uint8Array(33).fill(2) });
  return create(TxBodySchema, {
    messages: [
      create(AnySchema, { typeUrl: `/${ns}.bank.v1beta1.MsgSend`, value: toBinary(MsgSendSchema, send) }),
    ],
    extensionOptions: [
      create(AnySchema, { typeUrl: `/${ns}.crypto.secp256k1.PubKey`, value: toBinary(PubKeySchema, key) }),
    ],
  });
}

describe("protojson of signed documents", () => {
  it("gives back the very bytes that were signed, in either namespace", () => {
    const sdkJson = JSON.stringify(
      toJson(TxBodySchema, body("sdk"), { ...PROTO_JSON_WRITE, registry: types.registry }),
    );
    for (const ns of ["sdk", "cosmos"] as const) {
      const original = body(ns);
      // A file as Cosmos tooling writes it names cosmos.* types.
      const json = JSON.parse(sdkJson.replaceAll('"@type":"/sdk.', `"@type":"/${ns}.`));
      const parsed = fromProtoJson(TxBodySchema, json, types);
      expect(Buffer.from(toBinary(TxBodySchema, parsed)).toString("hex")).toBe(
        Buffer.from(toBinary(TxBodySchema, original)).toString("hex"),
      );
    }
  });
});
