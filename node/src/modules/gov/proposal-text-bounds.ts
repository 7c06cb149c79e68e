import { ChainError } from "../../errors/chain-error.js";
import { SdkErrors } from "../../errors/sdk-errors.js";
import { GovErrors, govError } from "./gov-keeper.js";

/** Cosmos SDK 0.50's gov config: metadata (a proposal's or a vote's) and a proposal's title, in bytes. */
export const MAX_METADATA_BYTES = 255;
/** A proposal's summary: 40 times the metadata's bound, as Cosmos SDK 0.50 has it. */
export const MAX_SUMMARY_BYTES = 40 * MAX_METADATA_BYTES;

/** Metadata, or a title, which Cosmos SDK 0.50 bounds as metadata (with metadata's error). */
export function checkMetadataLength(text: string): void {
  const n = Buffer.byteLength(text, "utf8");
  if (n > MAX_METADATA_BYTES) throw govError(GovErrors.MetadataTooLong, `got metadata with length ${n}`);
}

/** A v1 proposal's title, summary and metadata, in Cosmos SDK 0.50's order and words. */
export function checkProposalText(p: { title: string; summary: string; metadata: string }): void {
  if (p.title === "") throw ChainError.wrap(SdkErrors.InvalidRequest, "proposal title cannot be empty");
  if (p.summary === "") throw ChainError.wrap(SdkErrors.InvalidRequest, "proposal summary cannot be empty");
  checkMetadataLength(p.metadata);
  const summary = Buffer.byteLength(p.summary, "utf8");
  if (summary > MAX_SUMMARY_BYTES)
    throw govError(GovErrors.SummaryTooLong, `got summary with length ${summary}`);
  checkMetadataLength(p.title);
}
