import { silentLogger } from "@chaind/core/logger";
import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { exportState } from "../chain/export-state.js";
import { CliError } from "../client/cli-error.js";
import { genesisFileJson, writeGenesis } from "../config/genesis.js";
import { StoreLockedError } from "../store/store-errors.js";
import type { GlobalArgs } from "./global-options.js";

interface ExportArgs extends GlobalArgs {
  height: number;
  "for-zero-height": boolean;
  "jail-allowed-addrs": string[];
  "modules-to-export": string[];
  "output-document"?: string;
}

/** Cosmos' string-slice flags: repeated, comma-separated, or both. */
const listOf = (values: string[]) =>
  values
    .flatMap((v) => String(v).split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");

/**
 * `chaind export`: a stopped node's state at its latest or a retained height as a genesis document, to start
 * a new chain (a fork, a testnet) from, as Cosmos SDK's `export`. The node must be stopped: it holds the
 * database while it runs.
 */
export function exportCommand(definition: AppDefinition): CommandModule<GlobalArgs, ExportArgs> {
  return {
    command: "export",
    describe: "Export state to JSON as a genesis document (the node must be stopped)",
    builder: (y) =>
      y
        .option("height", {
          type: "number",
          default: -1,
          describe: "export state from a particular height (-1 means latest height)",
        })
        .option("for-zero-height", {
          type: "boolean",
          default: false,
          describe: "export state to start at height zero (perform preproccessing)",
        })
        .option("jail-allowed-addrs", {
          type: "string",
          array: true,
          default: [],
          describe: "comma-separated list of allowed addresses not to jail (used for zero-height export)",
        })
        .option("modules-to-export", {
          type: "string",
          array: true,
          default: [],
          describe: "comma-separated list of modules to export; all modules if empty",
        })
        .option("output-document", {
          type: "string",
          describe: "exported state is written to the given file instead of STDOUT",
        }) as never,
    handler: async (a) => {
      const h = a.height;
      if (!Number.isSafeInteger(h) || (h < 1 && h !== -1))
        throw new CliError(
          `invalid --height ${a.height}: a block height of at least 1, or -1 for the latest`,
        );
      let doc: Awaited<ReturnType<typeof exportState>>;
      try {
        doc = await exportState(
          {
            home: a.home,
            definition,
            height: h === -1 ? undefined : h,
            forZeroHeight: a["for-zero-height"],
            jailAllowedAddrs: listOf(a["jail-allowed-addrs"]),
            modulesToExport: listOf(a["modules-to-export"]),
          },
          { logger: silentLogger },
        );
      } catch (e) {
        if (e instanceof StoreLockedError)
          throw new CliError(`cannot export while the node is running: ${e.message}`);
        throw new CliError(`cannot export ${a.home}: ${(e as Error).message}`);
      }
      const out = a["output-document"];
      if (out === undefined) process.stdout.write(genesisFileJson(doc));
      else {
        try {
          writeGenesis(out, doc);
        } catch (e) {
          throw new CliError(`cannot write ${out}: ${(e as Error).message}`);
        }
      }
    },
  };
}
