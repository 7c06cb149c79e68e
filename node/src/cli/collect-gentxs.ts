import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { JsonValue } from "@bufbuild/protobuf";
import type { CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import { readGenesis, writeGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";
import type { GlobalArgs } from "./global-options.js";

/** `chaind genesis collect-gentxs`: puts every gentx of config/gentx/ into genesis (genutil.gen_txs). */
export function collectGentxsCommand(): CommandModule<GlobalArgs, GlobalArgs> {
  return {
    command: "collect-gentxs",
    describe: "Collect genesis txs and output a genesis.json file",
    handler: (args) => {
      const layout = new HomeLayout(args.home);
      if (!existsSync(layout.gentxDir))
        throw new CliError(`no gentx folder at ${layout.gentxDir}: run genesis gentx first`);
      const genesis = readGenesis(layout.genesisJson);
      const files = readdirSync(layout.gentxDir)
        .filter((f) => f.endsWith(".json"))
        .sort();
      if (files.length === 0) throw new CliError(`no gentx files in ${layout.gentxDir}`);
      const txs = files.map((f) => {
        try {
          return JSON.parse(readFileSync(join(layout.gentxDir, f), "utf8")) as JsonValue;
        } catch (e) {
          throw new CliError(`cannot read ${f}: ${(e as Error).message}`);
        }
      });
      genesis.app_state.genutil = { gen_txs: txs };
      writeGenesis(layout.genesisJson, genesis);
      process.stdout.write(`collected ${txs.length} genesis transaction(s) into ${layout.genesisJson}\n`);
    },
  };
}
