import type { AminoType } from "../../app/amino-types.js";

/**
 * Upgrade's messages in amino JSON, with the SDK's amino names. The plan and its time are never left out:
 * an unset time prints as Go's zero time, `0001-01-01T00:00:00Z`, as the SDK signs it.
 */
export const UPGRADE_AMINO_TYPES: readonly AminoType[] = [
  {
    typeName: "sdk.upgrade.v1beta1.MsgSoftwareUpgrade",
    aminoName: "cosmos-sdk/MsgSoftwareUpgrade",
    fields: { plan: { dontOmitEmpty: true } },
  },
  { typeName: "sdk.upgrade.v1beta1.MsgCancelUpgrade", aminoName: "cosmos-sdk/MsgCancelUpgrade" },
  {
    typeName: "sdk.upgrade.v1beta1.Plan",
    aminoName: "cosmos-sdk/Plan",
    fields: { time: { dontOmitEmpty: true } },
  },
];
