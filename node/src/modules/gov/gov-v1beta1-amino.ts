import type { AminoType } from "../../app/amino-types.js";

const coins = { dontOmitEmpty: true, encoding: "legacy_coins" } as const;
const proposalId = { proposal_id: { dontOmitEmpty: true } } as const;

/**
 * Gov v1beta1's messages in amino JSON, with the SDK's amino names (no `v1/`) and field options. A weight is a
 * LegacyDec on the wire and signs as its decimal with 18 places, as CosmJS and Ledger show it.
 */
export const GOV_V1BETA1_AMINO_TYPES: readonly AminoType[] = [
  {
    typeName: "sdk.gov.v1beta1.MsgSubmitProposal",
    aminoName: "cosmos-sdk/MsgSubmitProposal",
    fields: { initial_deposit: coins },
  },
  { typeName: "sdk.gov.v1beta1.MsgVote", aminoName: "cosmos-sdk/MsgVote", fields: proposalId },
  {
    typeName: "sdk.gov.v1beta1.MsgVoteWeighted",
    aminoName: "cosmos-sdk/MsgVoteWeighted",
    fields: { ...proposalId, options: { dontOmitEmpty: true } },
  },
  {
    typeName: "sdk.gov.v1beta1.WeightedVoteOption",
    fields: { weight: { dontOmitEmpty: true, encoding: "cosmos_dec" } },
  },
  {
    typeName: "sdk.gov.v1beta1.MsgDeposit",
    aminoName: "cosmos-sdk/MsgDeposit",
    fields: { ...proposalId, amount: coins },
  },
  { typeName: "sdk.gov.v1beta1.TextProposal", aminoName: "cosmos-sdk/TextProposal" },
];
