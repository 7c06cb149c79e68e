import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { silentLogger } from "@chaind/core/logger";
import { ChainNode } from "../../../node/src/chain/chain-node.js";
import { makeTestHome, TEST_DEFINITION } from "./test-home.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

/**
 * Re-executes every block `source` has stored on a fresh home made from the same genesis and answers the app
 * hash of each height on both sides. The source's hash of height h is the one block h+1 carries in its header;
 * the top height's is the store's latest.
 */
export async function replayFromGenesis(
  source: ChainNode,
  sourceHome: string,
): Promise<{ height: number; stored: string; replayed: string }[]> {
  const replica = makeTestHome();
  copyFileSync(join(sourceHome, "config", "genesis.json"), join(replica.home, "config", "genesis.json"));
  const fresh = await ChainNode.open(
    { home: replica.home, definition: TEST_DEFINITION },
    { logger: silentLogger },
  );
  const out: { height: number; stored: string; replayed: string }[] = [];
  try {
    const top = source.store.latestHeight;
    for (let h = 1; h <= top; h++) {
      const block = (await source.blocks.block(h))!;
      const t = block.header!.time!;
      await fresh.app.finalizeBlock({
        height: h,
        time: new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6)),
        txs: block.data!.txs,
        proposerAddress: block.header!.proposerAddress,
      });
      const { appHash } = await fresh.app.commit();
      const stored =
        h < top ? (await source.blocks.block(h + 1))!.header!.appHash : source.store.latestAppHash;
      out.push({ height: h, stored: hex(stored), replayed: hex(appHash) });
    }
  } finally {
    await fresh.close();
    replica.cleanup();
  }
  return out;
}
