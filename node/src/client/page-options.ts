import { create } from "@bufbuild/protobuf";
import { type PageRequest, PageRequestSchema } from "@chaind/proto/sdk/base/query/v1beta1/pagination_pb";
import { CliError } from "./cli-error.js";

/** The SDK's pagination flags of a list query. */
export const pageOptions = {
  "page-key": { type: "string", describe: "next_key of the previous page (base64), instead of --offset" },
  offset: { type: "number", default: 0, describe: "how many entries to skip, instead of --page-key" },
  limit: { type: "number", default: 100, describe: "how many entries to return" },
  "count-total": { type: "boolean", default: false, describe: "count the entries of every page" },
  reverse: { type: "boolean", default: false, describe: "results in descending order" },
} as const;

export interface PageArgs {
  "page-key"?: string;
  offset: number;
  limit: number;
  "count-total": boolean;
  reverse: boolean;
}

/** The PageRequest the flags ask for; a key and an offset together are refused, as the SDK refuses them. */
export function pageRequest(args: PageArgs): PageRequest {
  for (const flag of ["offset", "limit"] as const)
    if (!Number.isSafeInteger(args[flag]) || args[flag] < 0)
      throw new CliError(`--${flag} must be a non-negative integer, got ${args[flag]}`);
  const key = args["page-key"] ? Buffer.from(args["page-key"], "base64") : new Uint8Array();
  if (key.length > 0 && args.offset > 0)
    throw new CliError("paginate: invalid request, either offset or key is expected, got both");
  return create(PageRequestSchema, {
    key,
    offset: BigInt(args.offset),
    limit: BigInt(args.limit),
    countTotal: args["count-total"],
    reverse: args.reverse,
  });
}
