import { silentLogger } from "@chaind/core/logger";
import { describe, expect, it } from "vitest";
import { ChainNode } from "../../node/src/chain/chain-node.js";
import { NodeProcess } from "../node/helpers/chaind-process.js";
import { replayFromGenesis } from "../node/helpers/replay-chain.js";
import { makeTestHome, TEST_DEFINITION, testAccount } from "../node/helpers/test-home.js";
import { type IncludedTx, SendLoad } from "./send-load.js";
import { reportSoakFigures } from "./soak-report.js";
import { soakSize } from "./soak-size.js";

const KILLS = soakSize("node_kills", 3);
const SEED = soakSize("seed", 1);
const senders = ["s1", "s2", "s3", "s4"].map((n) => testAccount(n));
const recipient = testAccount("sink");

/** A small seeded generator, so a failing run can be repeated with SOAK_SEED. */
function seeded(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s % n;
  };
}

describe("chaind killed with SIGKILL at random moments under tx load", () => {
  it(`loses nothing across ${KILLS} kills: resumes at its last block, replays to the same hashes, keeps every included tx`, {
    timeout: 60_000 + KILLS * 15_000,
  }, async () => {
    const home = makeTestHome({
      accounts: [...senders.map((account) => ({ account, coins: "100000000stake" }))],
    });
    const rnd = seeded(SEED);
    const included: IncludedTx[] = [];
    const logged = new Map<number, string>();
    let loadErrors = 0;
    try {
      for (let k = 0; k < KILLS; k++) {
        const node = new NodeProcess(home.home);
        const opened = await node.waitFor(/opened state store .*height=(\d+)/);
        const top = logged.size ? Math.max(...logged.keys()) : 0;
        // A block may be committed in the instant between its write and its log line, never more than one.
        expect(Number(opened[1]), `restart ${k}`).toBeGreaterThanOrEqual(top);
        expect(Number(opened[1]), `restart ${k}`).toBeLessThanOrEqual(top + 1);
        const rpc = (await node.waitFor(/\brpc listening address=(\S+)/))[1];
        await node.waitFor(/committed block/);
        const load = new SendLoad(rpc, home.chainId, senders, recipient.address);
        load.start();
        await new Promise((r) => setTimeout(r, 300 + rnd(900)));
        node.proc.kill("SIGKILL");
        await node.proc;
        await load.stop();
        included.push(...load.included);
        loadErrors += load.failures.length;
        for (const [h, hash] of node.committed()) {
          if (logged.has(h)) expect(hash, `height ${h} committed twice, differently`).toBe(logged.get(h));
          logged.set(h, hash);
        }
      }
      expect(included.length).toBeGreaterThan(0);

      const node = await ChainNode.open(
        { home: home.home, definition: TEST_DEFINITION },
        { logger: silentLogger },
      );
      try {
        const lost = [];
        for (const tx of included) {
          const at = await node.blocks.txLocation(Buffer.from(tx.hash, "hex"));
          if (at?.height !== tx.height) lost.push(tx);
        }
        expect(lost).toEqual([]);
        const replay = await replayFromGenesis(node, home.home);
        const differing = replay.filter(
          (r) => r.stored !== r.replayed || (logged.has(r.height) && logged.get(r.height) !== r.stored),
        );
        expect(differing).toEqual([]);
        reportSoakFigures("node-crash", {
          kills: KILLS,
          seed: SEED,
          heights: replay.length,
          txs_included: included.length,
          txs_lost: lost.length,
          hash_mismatches: differing.length,
          broadcasts_interrupted: loadErrors,
        });
      } finally {
        await node.close();
      }
    } finally {
      home.cleanup();
    }
  });
});
