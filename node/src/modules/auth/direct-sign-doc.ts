import { create, toBinary } from "@bufbuild/protobuf";
import { SignDocSchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { lengthDelimitedSize, ProtoWriter, varintSize } from "../../app/proto-writer.js";

const MAX_UINT64 = 2n ** 64n - 1n;
const utf8 = new TextEncoder();

/** The chain id's UTF-8 bytes, kept for the one id a node signs for. */
let lastChainId: { text: string; bytes: Uint8Array } = { text: "", bytes: new Uint8Array(0) };
function chainIdBytes(chainId: string): Uint8Array {
  if (lastChainId.text !== chainId) lastChainId = { text: chainId, bytes: utf8.encode(chainId) };
  return lastChainId.bytes;
}

/**
 * The bytes a SIGN_MODE_DIRECT signature covers, SignDoc{body_bytes, auth_info_bytes, chain_id,
 * account_number}, written by hand (every signer of every tx, on CheckTx and again in the block): byte for byte
 * what protobuf-es writes, which is still used for an account number it would refuse.
 */
export function directSignBytes(
  bodyBytes: Uint8Array,
  authInfoBytes: Uint8Array,
  chainId: string,
  accountNumber: bigint,
): Uint8Array {
  if (typeof accountNumber !== "bigint" || accountNumber < 0n || accountNumber > MAX_UINT64)
    return toBinary(
      SignDocSchema,
      create(SignDocSchema, { bodyBytes, authInfoBytes, chainId, accountNumber }),
    );
  const chain = chainIdBytes(chainId);
  const w = new ProtoWriter(
    lengthDelimitedSize(bodyBytes.length) +
      lengthDelimitedSize(authInfoBytes.length) +
      lengthDelimitedSize(chain.length) +
      (accountNumber === 0n ? 0 : 1 + varintSize(accountNumber)),
  );
  if (bodyBytes.length > 0) w.lengthDelimited((1 << 3) | 2, bodyBytes);
  if (authInfoBytes.length > 0) w.lengthDelimited((2 << 3) | 2, authInfoBytes);
  if (chain.length > 0) w.lengthDelimited((3 << 3) | 2, chain);
  if (accountNumber !== 0n) {
    w.byte((4 << 3) | 0);
    w.varint(accountNumber);
  }
  return w.done();
}
