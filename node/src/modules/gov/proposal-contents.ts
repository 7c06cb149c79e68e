import { GovErrors, govError } from "./gov-keeper.js";

/**
 * What a v1 proposal must carry, as Cosmos SDK 0.50's SubmitProposal has it: messages or metadata (a text
 * proposal has only metadata); and metadata written in the recommended JSON form must repeat the proposal's
 * title and summary. Metadata that does not read as that JSON is free text and is let through.
 */
export function checkProposalContents(p: {
  messages: unknown[];
  metadata: string;
  title: string;
  summary: string;
}): void {
  if (p.messages.length === 0 && p.metadata === "")
    throw govError(GovErrors.NoProposalMsgs, "either metadata or Msgs length must be non-nil");
  const meta = recommendedMetadata(p.metadata);
  if (!meta) return;
  if (meta.title !== p.title)
    throw govError(
      GovErrors.InvalidProposalContent,
      `metadata title '${meta.title}' must equal proposal title '${p.title}'`,
    );
  if (meta.summary !== p.summary)
    throw govError(
      GovErrors.InvalidProposalContent,
      `metadata summary '${meta.summary}' must equal proposal summary '${p.summary}'`,
    );
}

/**
 * The title and summary of metadata that Go's encoding/json reads into the SDK's ProposalMetadata: a JSON object
 * (or null) whose title and summary, when present, are strings or null; keys match without regard to case.
 * Anything else fails to decode there, and the SDK then skips the check.
 */
function recommendedMetadata(metadata: string): { title: string; summary: string } | undefined {
  if (metadata === "") return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(metadata);
  } catch {
    return undefined;
  }
  if (parsed === null) return { title: "", summary: "" };
  if (typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const entries = Object.entries(parsed as Record<string, unknown>);
  // null: a value of another type, which fails the whole decoding.
  const text = (name: string): string | null => {
    const found =
      entries.find(([k]) => k === name) ?? entries.filter(([k]) => k.toLowerCase() === name).pop();
    if (!found || found[1] === null) return "";
    return typeof found[1] === "string" ? found[1] : null;
  };
  const title = text("title");
  const summary = text("summary");
  return title === null || summary === null ? undefined : { title, summary };
}
