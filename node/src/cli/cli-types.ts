import type { TypeRegistry } from "../app/type-registry.js";
import type { AppDefinition } from "../chain/app-definition.js";

/** Every type the app knows, for JSON output and Any packing in CLI commands (no node or store needed). */
export function cliTypes(def: AppDefinition): TypeRegistry {
  return def.assemble({ chainId: "cli", bech32Prefix: "sdk", minGasPrices: "" }).types;
}
