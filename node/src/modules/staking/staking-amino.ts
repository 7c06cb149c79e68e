import type { AminoType } from "../../app/amino-types.js";

const dec = { dontOmitEmpty: true, encoding: "cosmos_dec" } as const;
const kept = { dontOmitEmpty: true } as const;

/** Staking's messages in amino JSON, with the SDK's amino names and field options. */
export const STAKING_AMINO_TYPES: readonly AminoType[] = [
  {
    typeName: "sdk.staking.v1beta1.MsgCreateValidator",
    aminoName: "cosmos-sdk/MsgCreateValidator",
    fields: {
      description: kept,
      commission: kept,
      min_self_delegation: { dontOmitEmpty: true, encoding: "cosmos_int" },
      value: kept,
    },
  },
  {
    typeName: "sdk.staking.v1beta1.CommissionRates",
    fields: { rate: dec, max_rate: dec, max_change_rate: dec },
  },
  {
    typeName: "sdk.staking.v1beta1.MsgDelegate",
    aminoName: "cosmos-sdk/MsgDelegate",
    fields: { amount: kept },
  },
  {
    typeName: "sdk.staking.v1beta1.MsgBeginRedelegate",
    aminoName: "cosmos-sdk/MsgBeginRedelegate",
    fields: { amount: kept },
  },
  {
    typeName: "sdk.staking.v1beta1.MsgUndelegate",
    aminoName: "cosmos-sdk/MsgUndelegate",
    fields: { amount: kept },
  },
];
