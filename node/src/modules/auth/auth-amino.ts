import type { AminoType } from "../../app/amino-types.js";

/** Auth's message in amino JSON, with the SDK's amino name and field options. */
export const AUTH_AMINO_TYPES: readonly AminoType[] = [
  {
    typeName: "sdk.auth.v1beta1.MsgUpdateParams",
    aminoName: "cosmos-sdk/x/auth/MsgUpdateParams",
    fields: { params: { dontOmitEmpty: true } },
  },
];
