import type { AminoType } from "../../app/amino-types.js";

const coins = { dontOmitEmpty: true, encoding: "legacy_coins" } as const;

/** Bank's messages in amino JSON, with the SDK's amino names and field options. */
export const BANK_AMINO_TYPES: readonly AminoType[] = [
  { typeName: "sdk.bank.v1beta1.MsgSend", aminoName: "cosmos-sdk/MsgSend", fields: { amount: coins } },
  {
    typeName: "sdk.bank.v1beta1.MsgMultiSend",
    aminoName: "cosmos-sdk/MsgMultiSend",
    fields: { inputs: { dontOmitEmpty: true }, outputs: { dontOmitEmpty: true } },
  },
  { typeName: "sdk.bank.v1beta1.Input", fields: { coins } },
  { typeName: "sdk.bank.v1beta1.Output", fields: { coins } },
  {
    typeName: "sdk.bank.v1beta1.MsgUpdateParams",
    aminoName: "cosmos-sdk/x/bank/MsgUpdateParams",
    fields: { params: { dontOmitEmpty: true } },
  },
  { typeName: "sdk.bank.v1beta1.MsgSetSendEnabled", aminoName: "cosmos-sdk/MsgSetSendEnabled" },
];
