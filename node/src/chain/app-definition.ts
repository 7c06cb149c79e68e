import type { AppModule } from "../app/app-module.js";
import type { UpgradeRegistry } from "../modules/upgrade/upgrade-handlers.js";
import {
  type AppAssembly,
  assembleStandardApp,
  type StandardAppOptions,
  type StandardKeepers,
} from "./standard-app.js";

/**
 * What a chain binary is: its name, version and how it assembles its App. Each fixture version (v1, v2, v3)
 * is one of these, started by the same `chaind` command set.
 */
export interface AppDefinition {
  name: string;
  version: string;
  assemble(opts: Omit<StandardAppOptions, "name" | "version">): AppAssembly;
}

export function standardAppDefinition(name: string, version: string): AppDefinition {
  return defineApp({ name, version });
}

/**
 * An app built on the standard modules: its upgrade handlers and store upgrades by plan name, and the modules
 * it adds after the standard ones.
 */
export function defineApp(d: {
  name: string;
  version: string;
  upgrades?: UpgradeRegistry;
  modules?: (k: StandardKeepers) => AppModule[];
}): AppDefinition {
  return {
    name: d.name,
    version: d.version,
    assemble: (opts) =>
      assembleStandardApp({ ...opts, name: d.name, version: d.version }, d.upgrades, d.modules),
  };
}
