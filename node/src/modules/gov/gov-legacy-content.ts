import type { Any } from "@bufbuild/protobuf/wkt";
import { type TextProposal, TextProposalSchema } from "@chaind/proto/sdk/gov/v1beta1/gov_pb";
import { typeUrlToSdk } from "../../app/namespace.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { GovErrors, govError } from "./gov-keeper.js";

// Cosmos' limits on a legacy content's title and description.
const MAX_TITLE = 140;
const MAX_DESCRIPTION = 10_000;

/**
 * A legacy (gov v1beta1) proposal content, checked as Cosmos SDK 0.50 checks it. TextProposal is the one
 * content with a handler there (a signal: nothing runs when it passes); x/upgrade dropped its legacy handler,
 * so a SoftwareUpgradeProposal is refused and an upgrade goes through a v1 proposal carrying
 * MsgSoftwareUpgrade.
 */
export function legacyContent(content: Any | undefined, types: TypeRegistry): TextProposal {
  if (!content?.typeUrl) throw govError(GovErrors.InvalidProposalContent, "missing content");
  if (typeUrlToSdk(content.typeUrl).name !== TextProposalSchema.typeName)
    throw govError(
      GovErrors.NoProposalHandlerExists,
      `${content.typeUrl}: the only legacy content is a TextProposal; submit other proposals through gov v1 with their messages`,
    );
  const text = types.unpack<TextProposal>(content).message;
  if (!text.title.trim()) throw govError(GovErrors.InvalidProposalContent, "proposal title cannot be blank");
  if (Buffer.byteLength(text.title) > MAX_TITLE)
    throw govError(
      GovErrors.InvalidProposalContent,
      `proposal title is longer than max length of ${MAX_TITLE}`,
    );
  if (!text.description.trim())
    throw govError(GovErrors.InvalidProposalContent, "proposal description cannot be blank");
  if (Buffer.byteLength(text.description) > MAX_DESCRIPTION)
    throw govError(
      GovErrors.InvalidProposalContent,
      `proposal description is longer than max length of ${MAX_DESCRIPTION}`,
    );
  return text;
}
