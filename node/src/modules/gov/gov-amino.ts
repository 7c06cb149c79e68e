import type { AminoType } from "../../app/amino-types.js";

const coins = { dontOmitEmpty: true, encoding: "legacy_coins" } as const;
const proposalId = { proposal_id: { dontOmitEmpty: true } } as const;

/**
 * Gov v1's messages in amino JSON, with the SDK's amino names and field options. A proposal's messages are
 * Anys, each printed with its own amino name. A weight stays the decimal text the vote carries.
 */
export const GOV_V1_AMINO_TYPES: readonly AminoType[] = [
  {
    typeName: "sdk.gov.v1.MsgSubmitProposal",
    aminoName: "cosmos-sdk/v1/MsgSubmitProposal",
    fields: { initial_deposit: coins },
  },
  { typeName: "sdk.gov.v1.MsgVote", aminoName: "cosmos-sdk/v1/MsgVote", fields: proposalId },
  { typeName: "sdk.gov.v1.MsgVoteWeighted", aminoName: "cosmos-sdk/v1/MsgVoteWeighted", fields: proposalId },
  {
    typeName: "sdk.gov.v1.MsgDeposit",
    aminoName: "cosmos-sdk/v1/MsgDeposit",
    fields: { ...proposalId, amount: coins },
  },
];
