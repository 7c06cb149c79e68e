import { create, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import {
  AuthInfoSchema,
  type SignerInfo,
  SignerInfoSchema,
  TxBodySchema,
  TxRawSchema,
} from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { directSignBytes } from "../modules/auth/direct-sign-doc.js";

/** One signer of a tx: its key, the numbers the chain knows it by, and how it signs. */
export interface DirectSigner {
  pubKey: Uint8Array;
  accountNumber: bigint;
  sequence: bigint;
  sign(signBytes: Uint8Array): Uint8Array | Promise<Uint8Array>;
}

export interface UnsignedTxParts {
  messages: Any[];
  memo?: string;
  timeoutHeight?: bigint;
  fee: { amount: { denom: string; amount: string }[]; gasLimit: bigint; payer?: string; granter?: string };
}

/** What a signer info says of its signer; no key when the chain already knows it (or for a simulation). */
export interface SignerInfoParts {
  pubKey?: Uint8Array;
  sequence: bigint;
}

export function secp256k1PubKeyAny(pubKey: Uint8Array): Any {
  return create(AnySchema, {
    typeUrl: "/sdk.crypto.secp256k1.PubKey",
    value: toBinary(PubKeySchema, create(PubKeySchema, { key: pubKey })),
  });
}

export function encodeBody(parts: UnsignedTxParts): Uint8Array {
  return toBinary(
    TxBodySchema,
    create(TxBodySchema, {
      messages: parts.messages,
      memo: parts.memo ?? "",
      timeoutHeight: parts.timeoutHeight ?? 0n,
    }),
  );
}

/** A signer info for one key signing in `mode` (SIGN_MODE_DIRECT unless said). */
export function directSignerInfo(s: SignerInfoParts, mode: SignMode = SignMode.DIRECT): SignerInfo {
  return create(SignerInfoSchema, {
    publicKey: s.pubKey && secp256k1PubKeyAny(s.pubKey),
    modeInfo: { sum: { case: "single", value: { mode } } },
    sequence: s.sequence,
  });
}

/** Signer infos in the order of the tx's signers (its messages' signers, then a fee payer). */
export function encodeAuthInfo(
  parts: UnsignedTxParts,
  signers: readonly SignerInfoParts[],
  mode: SignMode = SignMode.DIRECT,
): Uint8Array {
  return toBinary(
    AuthInfoSchema,
    create(AuthInfoSchema, {
      signerInfos: signers.map((s) => directSignerInfo(s, mode)),
      fee: {
        amount: parts.fee.amount,
        gasLimit: parts.fee.gasLimit,
        payer: parts.fee.payer ?? "",
        granter: parts.fee.granter ?? "",
      },
    }),
  );
}

/** Builds and signs a tx with SIGN_MODE_DIRECT; returns the TxRaw bytes to broadcast. */
export async function signTxDirect(
  parts: UnsignedTxParts,
  signers: readonly DirectSigner[],
  chainId: string,
): Promise<Uint8Array> {
  const bodyBytes = encodeBody(parts);
  const authInfoBytes = encodeAuthInfo(parts, signers);
  const signatures: Uint8Array[] = [];
  for (const s of signers)
    signatures.push(await s.sign(directSignBytes(bodyBytes, authInfoBytes, chainId, s.accountNumber)));
  return toBinary(TxRawSchema, create(TxRawSchema, { bodyBytes, authInfoBytes, signatures }));
}
