import { existsSync } from "node:fs";
import { DEFAULT_BECH32_PREFIX, readGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";

/**
 * The chain's account prefix, from the home's genesis (Cosmos compiles it into the binary; a chaind chain
 * chooses it at `init`). A client-only home without a genesis gets the default.
 */
export function chainPrefix(home: string): string {
  const path = new HomeLayout(home).genesisJson;
  return existsSync(path)
    ? (readGenesis(path).bech32_prefix ?? DEFAULT_BECH32_PREFIX)
    : DEFAULT_BECH32_PREFIX;
}
