import { type AppAssembly, assembleStandardApp, type StandardAppOptions } from "./standard-app.js";

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
  return { name, version, assemble: (opts) => assembleStandardApp({ ...opts, name, version }) };
}
