import { useCometbftEngine } from "@chaind/harness/free-listener-ports";
import { REFERENCE_BINARIES, referenceBinary } from "@chaind/harness/reference-binaries";
import { type BenchAccount, benchAccount } from "./bench-accounts.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, type BenchSkipped, figure } from "./bench-result.js";
import { ChaindNode } from "./chaind-node.js";
import { killLeftoverProcesses } from "./leftover-processes.js";
import { sendOverRpc } from "./rpc-sends.js";
import { scratchDir } from "./scratch-dir.js";
import { makeSendsHome, SENDERS, type TxRun, warmAndTimed } from "./signed-sends.js";

/** Both engines' timeout_commit (config.toml's `[consensus]`, read by either), as section 4's RPC run. */
const BLOCK_TIME_MS = 100;

/**
 * One engine on a fresh home made the same way (the senders funded, the home's validator bonded at genesis, the
 * same block time), sent the same signed txs: `cometbft` the binary to make the blocks, or null for the embedded
 * engine. Anything of the run still alive afterwards (CometBFT outliving a killed chaind) is killed and named
 * in `notes`.
 */
async function engineRun(
  sends: { warm: Uint8Array[][]; timed: Uint8Array[][] },
  senders: BenchAccount[],
  cometbft: string | null,
  notes: string[],
): Promise<TxRun> {
  const dir = scratchDir(cometbft ? "cometbft" : "embedded");
  let node: ChaindNode | null = null;
  try {
    const total = sends.warm.flat().length + sends.timed.flat().length;
    makeSendsHome(dir.path, senders, total, {
      timeoutCommitMs: BLOCK_TIME_MS,
      genesisValidator: true,
    });
    if (cometbft) await useCometbftEngine(dir.path, `${BLOCK_TIME_MS}ms`);
    node = await ChaindNode.start(dir.path, cometbft ? { cometbft } : {});
    return await sendOverRpc(node.rpcUrl, sends);
  } finally {
    await node?.stop();
    const left = killLeftoverProcesses(dir.path);
    if (left.length > 0) notes.push(`Still running after chaind stopped, killed: ${left.join("; ")}.`);
    dir.remove();
  }
}

/**
 * Issue 30: signed bank sends committed per second through CometBFT (chaind serving ABCI, the reference
 * `cometbft` making the blocks and answering the RPC) against chaind's embedded engine (the ceiling), the same
 * signed sends from the same 16 accounts over the same `broadcast_tx_sync` clients, runs interleaved.
 */
export async function cometbftThroughput(opts: BenchOptions): Promise<BenchSection | BenchSkipped> {
  const binary = referenceBinary("cometbft");
  if ("missing" in binary) return { skipped: binary.missing };
  const embedded: TxRun[] = [];
  const comet: TxRun[] = [];
  const notes: string[] = [];
  const perSender = Math.ceil(opts.txs / SENDERS);
  for (let i = 0; i < opts.runs; i++) {
    const senders = Array.from({ length: SENDERS }, (_, j) => benchAccount(`bench-engines-${i}-${j}`));
    const sends = await warmAndTimed(senders, perSender);
    // Which engine goes first alternates, so a change in the machine's load between the two falls on both.
    for (const cometbft of i % 2 === 0 ? [null, binary.path] : [binary.path, null]) {
      const r = await engineRun(sends, senders, cometbft, notes);
      (cometbft ? comet : embedded).push(r);
    }
  }
  const perSec = (runs: TxRun[], key: keyof TxRun) => runs.map((r) => r[key]);
  const ceiling = figure("embedded engine: sends committed/s", "tx/s", perSec(embedded, "committedPerSec"));
  const answered = figure(
    "embedded engine: broadcast_tx_sync answered/s",
    "tx/s",
    perSec(embedded, "checkPerSec"),
  );
  return {
    id: "cometbft",
    title: "CometBFT against the embedded engine",
    params: {
      cometbft: REFERENCE_BINARIES.cometbft.version,
      timeoutCommitMs: BLOCK_TIME_MS,
      senders: SENDERS,
      sendsPerRun: perSender * SENDERS,
      runs: opts.runs,
      blocksPerRunEmbedded: embedded[0]?.blocks ?? 0,
      blocksPerRunCometbft: comet[0]?.blocks ?? 0,
    },
    figures: [
      ceiling,
      figure("CometBFT: sends committed/s", "tx/s", perSec(comet, "committedPerSec"), ceiling),
      answered,
      figure("CometBFT: broadcast_tx_sync answered/s", "tx/s", perSec(comet, "checkPerSec"), answered),
    ],
    notes: [
      `Both engines on homes made alike (16 funded senders, the home's validator bonded at genesis, timeout_commit ${BLOCK_TIME_MS} ms), sent the same pre-signed sends (as many again untimed first, committed before the timing starts); a run is one embedded node and one under CometBFT, which goes first alternating.`,
      "Under CometBFT the RPC is CometBFT's own; every setting chaind's config.toml does not name is CometBFT's default (mempool recheck on, timeout_propose 3s).",
      ...notes,
    ],
  };
}
