import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { toHexUpper } from "@chaind/core/hex";
import { silentLogger } from "@chaind/core/logger";
import type { HomeLayout } from "../config/home-layout.js";
import { PRUNING_NOTHING } from "../store/pruning.js";
import { stateRollbackOps } from "../store/state-rollback.js";
import { StateStore } from "../store/state-store.js";
import { CometBlockStoreReader } from "./comet-block-store-reader.js";
import type { NodeRollbackResult } from "./node-rollback.js";

const run = promisify(execFile);

/**
 * `rollback [--hard]` in a home CometBFT drives, as the SDK's: the App's state goes back to the height before
 * CometBFT's last block (its app hash is the one that block's header carries), then `cometbft rollback` takes
 * CometBFT's state there too (and with `removeBlock` its last block). The App goes first: should CometBFT's
 * rollback fail, the next start's handshake replays that block to the App and the home is as it was.
 * A block CometBFT stored but the App never ran (an upgrade halt) leaves the App where it is, as in CometBFT.
 */
export async function rollbackCometHome(
  layout: HomeLayout,
  opts: { removeBlock: boolean; cometbft: string },
): Promise<NodeRollbackResult> {
  const store = await StateStore.open(
    { dir: layout.dbDir, pruning: PRUNING_NOTHING },
    { logger: silentLogger },
  );
  let target: NodeRollbackResult;
  try {
    const blocks = await CometBlockStoreReader.open(layout.dataDir);
    if (!blocks)
      throw new Error(`no CometBFT block store in ${layout.dataDir}: CometBFT never ran in this home`);
    try {
      const app = store.latestHeight;
      if (app === blocks.height - 1) target = { height: app, appHash: store.latestAppHash };
      else if (app === blocks.height) {
        const header = (await blocks.meta(app))?.header;
        if (!header) throw new Error(`block ${app} is missing from CometBFT's block store`);
        await store.db.batch(await stateRollbackOps(store, header.appHash), { sync: true });
        target = { height: app - 1, appHash: header.appHash };
      } else
        throw new Error(
          `the app state is at height ${app} and CometBFT's block store at ${blocks.height}: start the node once so they meet, then roll back`,
        );
    } finally {
      await blocks.close();
    }
  } finally {
    await store.close();
  }
  const args = ["rollback", "--home", layout.home, ...(opts.removeBlock ? ["--hard"] : [])];
  let out: string;
  try {
    out = (await run(opts.cometbft, args)).stdout;
  } catch (e) {
    const err = e as Error & { stderr?: string };
    throw new Error(
      `the app state is back at height ${target.height}, but ${opts.cometbft} ${args.join(" ")} failed (${(err.stderr || err.message).trim()}); the next start replays CometBFT's last block to the app, so the home is as before`,
    );
  }
  const said = out.match(
    /Rolled back (?:both state and block|state) to height (\d+) and hash ([0-9A-Fa-f]*)/,
  );
  if (!said || Number(said[1]) !== target.height || said[2].toUpperCase() !== toHexUpper(target.appHash))
    throw new Error(
      `cometbft rolled back to something else than the app (height ${target.height}, hash ${toHexUpper(target.appHash)}): it said ${JSON.stringify(out.trim())}`,
    );
  return target;
}
