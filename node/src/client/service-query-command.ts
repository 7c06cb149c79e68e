import type { DescMessage, DescMethod, MessageInitShape } from "@bufbuild/protobuf";
import type { Argv, CommandModule } from "yargs";
import type { TypeRegistry } from "../app/type-registry.js";
import { chainPrefix } from "./chain-prefix.js";
import { type PageArgs, pageOptions, pageRequest } from "./page-options.js";
import type { QueryArgs } from "./query-options.js";
import { printMessage, runQuery } from "./run-query.js";
import { checkAddress } from "./tx-argument-checks.js";

export type ServiceQueryArgs = QueryArgs & PageArgs & Record<string, unknown>;

export interface ServiceQuerySpec<I extends DescMessage, O extends DescMessage> {
  command: string;
  aliases?: string[];
  describe: string;
  method: DescMethod & { input: I; output: O };
  /** A list: the SDK's paging flags, their PageRequest put into the request's `pagination`. */
  paged?: boolean;
  options?: (b: Argv) => Argv;
  /** The request from the arguments; throws (a CliError) on a bad argument before the node is asked. */
  request: (a: ServiceQueryArgs) => MessageInitShape<I>;
}

/**
 * One leaf of `query <module>`, as SDK 0.50's CLI has them: a Query service method, its request from the
 * arguments, the whole response printed (`-o json` as the gateway writes it, text as YAML).
 */
export function serviceQueryCommand<I extends DescMessage, O extends DescMessage>(
  types: TypeRegistry,
  spec: ServiceQuerySpec<I, O>,
): CommandModule {
  return {
    command: spec.command,
    aliases: spec.aliases,
    describe: spec.describe,
    builder: (b: Argv) => {
      const withPages = spec.paged ? b.options(pageOptions) : b;
      return spec.options ? spec.options(withPages) : withPages;
    },
    handler: async (raw) => {
      const a = raw as unknown as ServiceQueryArgs;
      const request = spec.request(a);
      const r = await runQuery(
        a,
        spec.method,
        (spec.paged ? { ...request, pagination: pageRequest(a) } : request) as MessageInitShape<I>,
      );
      printMessage(a, spec.method.output, r, types.registry);
    },
  };
}

/** An address argument of the home's chain, an account's or (`valoper`) a validator operator's, checked. */
export function addressArgument(
  a: ServiceQueryArgs,
  name: string,
  kind: "account" | "valoper" = "account",
): string {
  const text = String(a[name]);
  checkAddress(text, kind === "account" ? chainPrefix(a.home) : `${chainPrefix(a.home)}valoper`);
  return text;
}
