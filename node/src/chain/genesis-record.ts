import type { GenesisDoc } from "../config/genesis.js";
import type { StateStore } from "../store/state-store.js";
import { GENESIS_KEY } from "../store/state-store-keys.js";

/** The genesis document without its app state: all a node needs of genesis once the chain has begun. */
export type GenesisHeader = Omit<GenesisDoc, "app_state">;

export function genesisHeader(doc: GenesisDoc): GenesisHeader {
  const { app_state: _, ...header } = doc;
  return header;
}

/** The header kept at InitChain, or undefined in a home whose chain began before it was kept. */
export async function readGenesisRecord(store: StateStore): Promise<GenesisHeader | undefined> {
  const raw = await store.db.get(GENESIS_KEY);
  return raw ? (JSON.parse(new TextDecoder().decode(raw)) as GenesisHeader) : undefined;
}

/**
 * Kept beside the commit record, outside the app hash: a restart then never parses genesis.json again (it can
 * be tens of MB). Written before the first block, so a crash before it only means InitChain runs again.
 */
export async function writeGenesisRecord(store: StateStore, header: GenesisHeader): Promise<void> {
  await store.db.put(GENESIS_KEY, new TextEncoder().encode(JSON.stringify(header)));
}
