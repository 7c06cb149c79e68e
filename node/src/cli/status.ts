import type { CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import { type QueryArgs, queryOptions } from "../client/query-options.js";
import { nodeClient, printJson } from "../client/run-query.js";
import type { GlobalArgs } from "./global-options.js";
import { type HomeStatus, readHomeStatus } from "./home-status.js";

/**
 * `chaind status`: the node's CometBFT status. Without `--node`, a home whose node is stopped answers from its
 * own block store (so a supervisor can check the height a halted node reached, as cosmovisor does with
 * `status --home`); while the node runs it holds the database, and its RPC answers, as in Cosmos.
 */
export const statusCommand: CommandModule<GlobalArgs, QueryArgs> = {
  command: "status",
  describe: "Query remote node for status (a stopped node's home answers from its block store)",
  builder: (y) => y.options(queryOptions) as never,
  handler: async (a) => {
    const out = { ...a, output: a.output ?? "json" };
    let local: HomeStatus | undefined;
    if (a.node === undefined) {
      try {
        local = await readHomeStatus(a.home);
      } catch (e) {
        throw new CliError(
          `cannot read the status of the stopped node in ${a.home}: ${(e as Error).message}`,
        );
      }
      if (local.kind === "read") return printJson(out, local.status);
    }
    try {
      printJson(out, await nodeClient(a).status());
    } catch (e) {
      const running =
        local?.kind === "locked" ? " (the node in this home is running: its database is in use)" : "";
      throw new CliError(`${(e as Error).message}${running}`);
    }
  },
};
