import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import type { ModeInfo } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { type AminoSignerData, aminoSignBytes } from "../../app/amino-sign-doc.js";
import type { AminoEncoder } from "../../app/amino-types.js";
import type { DecodedTx } from "../../app/tx-decoder.js";
import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { directSignBytes } from "./direct-sign-doc.js";

/** The sign modes this node verifies; the README's "Sign modes" lists them for wallet authors. */
const ACCEPTED_SIGN_MODES = "SIGN_MODE_DIRECT and SIGN_MODE_LEGACY_AMINO_JSON";

/** The bytes one signer's signature must cover, in the mode its signer info names. */
export function signBytesFor(
  modeInfo: ModeInfo | undefined,
  tx: DecodedTx,
  signer: AminoSignerData,
  amino: AminoEncoder,
): Uint8Array {
  if (modeInfo?.sum.case !== "single")
    throw ChainError.wrap(
      SdkErrors.NotSupported,
      `${modeInfo?.sum.case === "multi" ? "multisig" : "missing"} signer mode info; this node accepts ${ACCEPTED_SIGN_MODES}`,
    );
  const mode = modeInfo.sum.value.mode;
  switch (mode) {
    case SignMode.DIRECT:
      return directSignBytes(tx.raw.bodyBytes, tx.raw.authInfoBytes, signer.chainId, signer.accountNumber);
    case SignMode.LEGACY_AMINO_JSON:
      return aminoSignBytes(amino, tx.body, tx.authInfo, signer);
    default: {
      const name = SignMode[mode] ? `SIGN_MODE_${SignMode[mode]}` : `sign mode ${mode}`;
      throw ChainError.wrap(
        SdkErrors.NotSupported,
        `${name} is not supported; this node accepts ${ACCEPTED_SIGN_MODES}`,
      );
    }
  }
}

/**
 * Whether a signature was made in amino JSON alone (every member's, for a multisig): its sign bytes then carry
 * the sequence, so the SDK names the sequence among the causes when it fails to verify.
 */
export function onlyAminoJson(modeInfo: ModeInfo | undefined): boolean {
  if (modeInfo?.sum.case === "single") return modeInfo.sum.value.mode === SignMode.LEGACY_AMINO_JSON;
  if (modeInfo?.sum.case === "multi") return modeInfo.sum.value.modeInfos.every(onlyAminoJson);
  return false;
}
