import type { Message } from "@bufbuild/protobuf";
import { CoinSchema } from "@chaind/proto/sdk/base/v1beta1/coin_pb";
import type { AuthInfo, TxBody } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { canonicalAminoJson } from "./amino-json.js";
import type { AminoEncoder, AminoValue } from "./amino-types.js";

/** Who signs: the numbers the chain knows the account by, on which chain. */
export interface AminoSignerData {
  chainId: string;
  accountNumber: bigint;
  sequence: bigint;
}

const MODE = "SIGN_MODE_LEGACY_AMINO_JSON";

/**
 * The StdSignDoc of SIGN_MODE_LEGACY_AMINO_JSON as the SDK builds it: `account_number`, `chain_id`, `fee`
 * (`amount`, `gas`, and `payer` / `granter` when set), `memo`, `msgs` as amino JSON, `sequence`, and
 * `timeout_height` when it is not zero. The body bytes are not signed in this mode, so a body that holds
 * anything the document cannot show (extension options, unknown fields, a tip) is refused.
 */
export function aminoSignDoc(
  amino: AminoEncoder,
  body: TxBody,
  authInfo: AuthInfo,
  signer: AminoSignerData,
): AminoValue {
  const refuse = (what: string) =>
    ChainError.wrap(SdkErrors.InvalidRequest, `${MODE} does not support ${what}`);
  if (body.extensionOptions.length > 0 || body.nonCriticalExtensionOptions.length > 0)
    throw refuse("protobuf extension options");
  if (((body as { $unknown?: unknown[] }).$unknown?.length ?? 0) > 0)
    throw refuse("unknown fields in the tx body");
  if (authInfo.tip) throw refuse("tips");
  const fee = authInfo.fee;
  const doc: Record<string, AminoValue> = {
    account_number: signer.accountNumber.toString(),
    chain_id: signer.chainId,
    fee: {
      amount: (fee?.amount ?? []).map((c) => amino.messageJson(CoinSchema, c as Message)),
      gas: (fee?.gasLimit ?? 0n).toString(),
    },
    memo: body.memo,
    msgs: body.messages.map((m) => amino.anyJson(m)),
    sequence: signer.sequence.toString(),
  };
  const feeDoc = doc.fee as Record<string, AminoValue>;
  if (fee?.payer) feeDoc.payer = fee.payer;
  if (fee?.granter) feeDoc.granter = fee.granter;
  if (body.timeoutHeight > 0n) doc.timeout_height = body.timeoutHeight.toString();
  return doc;
}

/** The bytes a SIGN_MODE_LEGACY_AMINO_JSON signature covers: the StdSignDoc as canonical JSON, UTF-8. */
export function aminoSignBytes(
  amino: AminoEncoder,
  body: TxBody,
  authInfo: AuthInfo,
  signer: AminoSignerData,
): Uint8Array {
  return new TextEncoder().encode(canonicalAminoJson(aminoSignDoc(amino, body, authInfo, signer)));
}
