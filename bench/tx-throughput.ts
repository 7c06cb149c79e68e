import { silentLogger } from "@chaind/core/logger";
import { sha256 } from "@noble/hashes/sha2.js";
import { ChainNode } from "chaind/chain/chain-node";
import { secp256k1Backend, signSecp256k1, verifySecp256k1 } from "chaind/crypto/secp256k1";
import { benchAccount } from "./bench-accounts.js";
import { BENCH_DEFINITION } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { ChaindNode } from "./chaind-node.js";
import { sendOverRpc } from "./rpc-sends.js";
import { scratchDir } from "./scratch-dir.js";
import { countCommitted, makeSendsHome, SENDERS, type TxRun, warmAndTimed } from "./signed-sends.js";

/**
 * In-process: the 16 senders at once, each adding its txs to the mempool in order and waiting for each CheckTx
 * as a wallet does; then blocks until the mempool is empty.
 */
async function inProcessRun(opts: BenchOptions, run: number): Promise<TxRun> {
  const dir = scratchDir("tx");
  let node: ChainNode | null = null;
  try {
    const senders = Array.from({ length: SENDERS }, (_, i) => benchAccount(`bench-tx-${run}-${i}`));
    const perSender = Math.ceil(opts.txs / SENDERS);
    makeSendsHome(dir.path, senders, 2 * perSender * SENDERS);
    const { warm, timed } = await warmAndTimed(senders, perSender);
    node = await ChainNode.open({ home: dir.path, definition: BENCH_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    await inProcessSends(node, warm);
    return await inProcessSends(node, timed);
  } finally {
    await node?.close();
    dir.remove();
  }
}

/** Each sender's txs through CheckTx in order, the senders at once; then blocks until the mempool is empty. */
async function inProcessSends(node: ChainNode, bySender: Uint8Array[][]): Promise<TxRun> {
  const total = bySender.reduce((n, txs) => n + txs.length, 0);
  const t0 = performance.now();
  await Promise.all(
    bySender.map(async (txs) => {
      for (const tx of txs) {
        const r = await node.mempool.add(tx);
        if (r.code !== 0) throw new Error(`CheckTx refused a send: code ${r.code} ${r.log}`);
      }
    }),
  );
  const t1 = performance.now();
  let blocks = 0;
  let committed = 0;
  while (node.mempool.size > 0) {
    const b = await node.producer.produce();
    blocks++;
    committed += countCommitted(b, b.height);
  }
  const t2 = performance.now();
  if (committed !== total) throw new Error(`${committed} of ${total} sends committed`);
  return {
    committedPerSec: total / ((t2 - t0) / 1000),
    checkPerSec: total / ((t1 - t0) / 1000),
    blockPerSec: total / ((t2 - t1) / 1000),
    blocks,
  };
}

/**
 * A chaind process: 16 clients at once, each sending its account's txs in order with `broadcast_tx_sync`
 * (each waits for CheckTx before the next, as a wallet does), timed until the node has committed them all.
 */
async function rpcRun(opts: BenchOptions, run: number): Promise<TxRun> {
  const dir = scratchDir("tx-rpc");
  let node: ChaindNode | null = null;
  try {
    const senders = Array.from({ length: SENDERS }, (_, i) => benchAccount(`bench-rpc-${run}-${i}`));
    const perSender = Math.ceil(opts.txs / SENDERS);
    makeSendsHome(dir.path, senders, 2 * perSender * SENDERS, { timeoutCommitMs: 100 });
    const sends = await warmAndTimed(senders, perSender);
    node = await ChaindNode.start(dir.path);
    return await sendOverRpc(node.rpcUrl, sends);
  } finally {
    await node?.stop();
    dir.remove();
  }
}

/** Secp256k1 verifications per second for about `ms`, through the node's own verify: the ceiling. */
function verificationsPerSec(ms: number): number {
  const acct = benchAccount("bench-verify");
  const msg = sha256(new TextEncoder().encode("a sign doc of about the size of a send")).slice();
  const sig = signSecp256k1(acct.priv, msg);
  let n = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < ms) {
    for (let i = 0; i < 50; i++) if (!verifySecp256k1(acct.pub, msg, sig)) throw new Error("verify failed");
    n += 50;
  }
  return n / ((performance.now() - t0) / 1000);
}

/**
 * Issue 18: signed bank sends committed per second, from 16 accounts each sending its txs in order, in-process
 * and over RPC `broadcast_tx_sync` to a chaind process, against the secp256k1 verifications per second of the
 * same machine in the same run (libsecp256k1 unless the binding failed to load, which the params say).
 */
export async function txThroughput(opts: BenchOptions): Promise<BenchSection> {
  const verifies: number[] = [];
  const local: TxRun[] = [];
  const remote: TxRun[] = [];
  for (let i = 0; i < opts.runs; i++) {
    verifies.push(verificationsPerSec(opts.quick ? 500 : 2000));
    local.push(await inProcessRun(opts, i));
    remote.push(await rpcRun(opts, i));
  }
  const ceiling = figure("secp256k1 verifications/s", "verify/s", verifies);
  const perSec = (runs: TxRun[], key: keyof TxRun) => runs.map((r) => r[key]);
  return {
    id: "tx",
    title: "Transaction throughput",
    params: {
      verifier: secp256k1Backend(),
      senders: SENDERS,
      sendsPerRun: Math.ceil(opts.txs / SENDERS) * SENDERS,
      runs: opts.runs,
      blocksPerRunInProcess: local[0]?.blocks ?? 0,
      blocksPerRunRpc: remote[0]?.blocks ?? 0,
    },
    figures: [
      ceiling,
      figure(
        "RPC: sends committed/s (broadcast_tx_sync, 16 clients)",
        "tx/s",
        perSec(remote, "committedPerSec"),
        ceiling,
      ),
      figure("RPC: broadcast_tx_sync answered/s", "tx/s", perSec(remote, "checkPerSec"), ceiling),
      figure(
        "in-process: sends committed/s (CheckTx + blocks)",
        "tx/s",
        perSec(local, "committedPerSec"),
        ceiling,
      ),
      figure("in-process: CheckTx into the mempool/s", "tx/s", perSec(local, "checkPerSec"), ceiling),
      figure("in-process: block execution and commit/s", "tx/s", perSec(local, "blockPerSec"), ceiling),
    ],
    notes: [
      "16 accounts, each sending its pre-signed sends in sequence order (in process too, the 16 at once); a send's signature is checked once, on the signature thread ahead of CheckTx or in CheckTx, and the block reuses that result (the verified-signature cache); every block's batches are written with sync.",
      "Each run first sends as many untimed, committed before the timing starts (see the text below the table).",
      "RPC: a chaind process with timeout_commit 100ms; 16 kept-alive HTTP clients in the benchmark's process (on the same two cores), timed until the last send is in a committed block.",
    ],
  };
}
