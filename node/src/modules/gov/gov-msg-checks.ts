import type { Msg } from "@chaind/proto/sdk/gov/v1/tx_pb";
import type { Msg as LegacyMsg } from "@chaind/proto/sdk/gov/v1beta1/tx_pb";
import type { MsgChecks } from "../../app/service-registrar.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { legacyContent } from "./gov-legacy-content.js";
import { checkProposalContents } from "./proposal-contents.js";
import { checkMetadataLength, checkProposalText } from "./proposal-text-bounds.js";

/**
 * gov's stateless message checks, run before the ante handler: a proposal's text or a vote's metadata out of
 * bounds is refused by CheckTx, not in a block after its fee was taken. The msg servers check the same again,
 * for messages that reach them by other ways (a passed proposal's).
 */
export function govMsgChecks(): MsgChecks<typeof Msg> {
  return {
    submitProposal: (msg) => {
      checkProposalText(msg);
      checkProposalContents(msg);
    },
    vote: (msg) => checkMetadataLength(msg.metadata),
    voteWeighted: (msg) => checkMetadataLength(msg.metadata),
  };
}

/** v1beta1's: a legacy proposal's content (title and description), as Cosmos' TextProposal ValidateBasic. */
export function govLegacyMsgChecks(types: TypeRegistry): MsgChecks<typeof LegacyMsg> {
  return {
    submitProposal: (msg) => {
      legacyContent(msg.content, types);
    },
  };
}
