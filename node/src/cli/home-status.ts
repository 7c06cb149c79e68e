import { existsSync } from "node:fs";
import { silentLogger } from "@chaind/core/logger";
import { EMBEDDED_VOTING_POWER } from "../chain/chain-node.js";
import { storedAppVersion } from "../chain/node-app.js";
import { readGenesis } from "../config/genesis.js";
import { readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import { readPrivValidatorKey } from "../config/priv-validator-key.js";
import { BlockStore } from "../consensus/block-store.js";
import { CometBlockStoreReader } from "../consensus/comet-block-store-reader.js";
import { nodeIdOf } from "../consensus/node-id.js";
import { cometStatus } from "../server/rpc/status-methods.js";
import { PRUNING_NOTHING } from "../store/pruning.js";
import { StateStore } from "../store/state-store.js";
import { StoreLockedError } from "../store/store-errors.js";

/** What `status` answers, read from a home whose node is not running. */
export type HomeStatus =
  | { kind: "read"; status: Awaited<ReturnType<typeof cometStatus>> }
  /** No database yet (the node never ran here), or the node holds it (it is running): ask its RPC. */
  | { kind: "no-database" }
  | { kind: "locked" };

/**
 * The CometBFT status of a stopped node, from its home: the block store's height (a block the node halted in
 * counts, as in CometBFT; CometBFT's own store in a home it drives), its config, genesis and validator key, as
 * the running node's RPC would say.
 * Opening LevelDB takes its lock for the moment of the read; a running node holds it, and that is reported.
 */
export async function readHomeStatus(home: string): Promise<HomeStatus> {
  const layout = new HomeLayout(home);
  if (!existsSync(layout.dbDir)) return { kind: "no-database" };
  const { node } = readHomeConfig(layout);
  const genesis = readGenesis(layout.genesisJson);
  const signer = readPrivValidatorKey(layout.privValidatorKey);
  let store: StateStore;
  try {
    // Nothing is committed here, so pruning never runs: its settings do not matter.
    store = await StateStore.open({ dir: layout.dbDir, pruning: PRUNING_NOTHING }, { logger: silentLogger });
  } catch (e) {
    if (e instanceof StoreLockedError) return { kind: "locked" };
    throw e;
  }
  let comet: CometBlockStoreReader | undefined;
  try {
    // CometBFT keeps a home's blocks when it drives the node; chaind's own block store is the embedded engine's.
    if (node.consensusEngine === "cometbft") {
      try {
        comet = await CometBlockStoreReader.open(layout.dataDir);
      } catch (e) {
        if (e instanceof StoreLockedError) return { kind: "locked" };
        throw e;
      }
      if (!comet) return { kind: "no-database" };
    }
    const blocks = comet ?? (await BlockStore.open(store));
    const appVersion = await storedAppVersion(store);
    const status = await cometStatus({
      blocks,
      appVersion,
      chainId: genesis.chain_id,
      moniker: node.moniker,
      rpcAddress: node.rpc.laddr,
      nodeId: nodeIdOf(layout, signer),
      signer,
      votingPower: EMBEDDED_VOTING_POWER,
    });
    return { kind: "read", status };
  } finally {
    await comet?.close();
    await store.close();
  }
}
