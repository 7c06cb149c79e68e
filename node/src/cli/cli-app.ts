import type { AppModule } from "../app/app-module.js";
import type { ModuleCliContext } from "../app/module-command.js";
import type { AppDefinition } from "../chain/app-definition.js";

/** The app as its command line sees it (no node or store needed): its modules and every type it knows. */
export interface CliApp {
  context: ModuleCliContext;
  /** Sorted by name, the order in which Cosmos lists module commands. */
  modules: AppModule[];
}

export function cliApp(def: AppDefinition): CliApp {
  const assembly = def.assemble({ chainId: "cli", bech32Prefix: "sdk", minGasPrices: "" });
  const modules = [...assembly.modules].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { context: { types: assembly.types }, modules };
}
