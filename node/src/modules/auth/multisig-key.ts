import { fromBinary } from "@bufbuild/protobuf";
import { LegacyAminoPubKeySchema } from "@chaind/proto/sdk/crypto/multisig/keys_pb";
import { MultiSignatureSchema } from "@chaind/proto/sdk/crypto/multisig/v1beta1/multisig_pb";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import type { ModeInfo, ModeInfo_Multi } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { typeUrlToSdk } from "../../app/namespace.js";
import type { MultisigKey } from "../../crypto/multisig-address.js";
import { verifySecp256k1 } from "../../crypto/secp256k1.js";
import { SECP256K1_PUBKEY_BYTES, SECP256K1_SIGNATURE_BYTES } from "../../crypto/secp256k1-verify.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";

export const MULTISIG_PUBKEY = "sdk.crypto.multisig.LegacyAminoPubKey";
const SECP256K1_PUBKEY = "sdk.crypto.secp256k1.PubKey";

const invalid = (why: string) => ChainError.wrap(SdkErrors.InvalidPubKey, why);

/** Decodes a LegacyAminoPubKey's bytes; `maxKeys` bounds the work a stranger's key can ask for. */
export function decodeMultisigKey(value: Uint8Array, maxKeys: number): MultisigKey {
  let pk: ReturnType<typeof fromBinary<typeof LegacyAminoPubKeySchema>>;
  try {
    pk = fromBinary(LegacyAminoPubKeySchema, value);
  } catch (e) {
    throw invalid(`malformed multisig public key: ${(e as Error).message}`);
  }
  const n = pk.publicKeys.length;
  if (n === 0 || n > maxKeys) throw invalid(`a multisig key holds 1 to ${maxKeys} keys, got ${n}`);
  if (pk.threshold === 0 || pk.threshold > n)
    throw invalid(`multisig threshold must be 1 to ${n}, got ${pk.threshold}`);
  const keys = pk.publicKeys.map((any, i) => {
    if (typeUrlToSdk(any.typeUrl).name !== SECP256K1_PUBKEY)
      throw invalid(`multisig key ${i}: unsupported key type ${any.typeUrl} (only secp256k1, no nesting)`);
    const key = fromBinary(PubKeySchema, any.value).key;
    if (key.length !== SECP256K1_PUBKEY_BYTES)
      throw invalid(`multisig key ${i}: invalid secp256k1 public key length ${key.length}`);
    return key;
  });
  return { threshold: pk.threshold, keys };
}

/**
 * Checks a multisig signature: the bit array names which keys signed, in key order; at least `threshold` did,
 * each with one signature over the bytes its own mode info asks for. Nested multisig modes are refused.
 * Answers how many signatures were checked (each is charged as one secp256k1 verification).
 */
export function verifyMultisig(
  m: MultisigKey,
  multi: ModeInfo_Multi,
  signature: Uint8Array,
  signBytesOf: (modeInfo: ModeInfo) => Uint8Array,
): number {
  const unauthorized = (why: string) => ChainError.wrap(SdkErrors.Unauthorized, why);
  const bits = multi.bitarray;
  const size = bits ? (bits.elems.length - (bits.extraBitsStored ? 1 : 0)) * 8 + bits.extraBitsStored : 0;
  if (!bits || bits.extraBitsStored > 7 || size !== m.keys.length)
    throw unauthorized(`bit array size is incorrect, expecting: ${m.keys.length}`);
  let sigs: Uint8Array[];
  try {
    sigs = fromBinary(MultiSignatureSchema, signature).signatures;
  } catch (e) {
    throw unauthorized(`malformed multisignature: ${(e as Error).message}`);
  }
  const signers = m.keys.flatMap((_, i) => ((bits.elems[i >> 3] >> (7 - (i & 7))) & 1 ? [i] : []));
  if (signers.length < m.threshold)
    throw unauthorized(`not enough signatures: ${signers.length} of threshold ${m.threshold}`);
  if (sigs.length !== signers.length || multi.modeInfos.length !== signers.length)
    throw unauthorized(
      `signature count doesn't match: ${signers.length} signers, ${sigs.length} signatures, ${multi.modeInfos.length} mode infos`,
    );
  signers.forEach((keyIndex, j) => {
    const modeInfo = multi.modeInfos[j];
    if (modeInfo.sum.case !== "single") throw unauthorized("nested multisig signatures are not supported");
    if (sigs[j].length !== SECP256K1_SIGNATURE_BYTES)
      throw unauthorized(
        `signature of multisig key ${keyIndex}: a secp256k1 signature is ${SECP256K1_SIGNATURE_BYTES} bytes, got ${sigs[j].length}`,
      );
    if (!verifySecp256k1(m.keys[keyIndex], signBytesOf(modeInfo), sigs[j]))
      throw unauthorized(`signature of multisig key ${keyIndex} verification failed`);
  });
  return signers.length;
}
