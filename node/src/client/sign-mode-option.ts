import { fromBinary } from "@bufbuild/protobuf";
import { SignMode } from "@chaind/proto/sdk/tx/signing/v1beta1/signing_pb";
import { AuthInfoSchema, TxBodySchema } from "@chaind/proto/sdk/tx/v1beta1/tx_pb";
import { type AminoSignerData, aminoSignBytes } from "../app/amino-sign-doc.js";
import { AminoEncoder } from "../app/amino-types.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { ChainError } from "../errors/chain-error.js";
import { directSignBytes } from "../modules/auth/direct-sign-doc.js";
import { CliError } from "./cli-error.js";

/** `--sign-mode`, as Cosmos names its choices. */
export const signModeOption = {
  "sign-mode": {
    type: "string",
    choices: ["direct", "amino-json"],
    default: "direct",
    describe:
      "direct (SIGN_MODE_DIRECT) or amino-json (SIGN_MODE_LEGACY_AMINO_JSON, what Ledger devices sign)",
  },
} as const;

export type SignModeName = "direct" | "amino-json";

export function signModeOf(name: string): SignMode {
  if (name === "direct") return SignMode.DIRECT;
  if (name === "amino-json") return SignMode.LEGACY_AMINO_JSON;
  throw new CliError(`unknown --sign-mode ${JSON.stringify(name)}: use direct or amino-json`);
}

/** The bytes one signer signs in `mode`, over the encoded body and auth info of the tx. */
export function cliSignBytes(
  mode: SignMode,
  bodyBytes: Uint8Array,
  authInfoBytes: Uint8Array,
  signer: AminoSignerData,
  types: TypeRegistry,
): Uint8Array {
  if (mode === SignMode.DIRECT)
    return directSignBytes(bodyBytes, authInfoBytes, signer.chainId, signer.accountNumber);
  try {
    return aminoSignBytes(
      new AminoEncoder(types),
      fromBinary(TxBodySchema, bodyBytes),
      fromBinary(AuthInfoSchema, authInfoBytes),
      signer,
    );
  } catch (e) {
    if (e instanceof ChainError) throw new CliError(e.message);
    throw e;
  }
}
