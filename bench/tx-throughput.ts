import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { ChainNode } from "chaind/chain/chain-node";
import { signTxDirect } from "chaind/client/direct-signing";
import { signSecp256k1, verifySecp256k1 } from "chaind/crypto/secp256k1";
import { type BenchAccount, benchAccount } from "./bench-accounts.js";
import { BENCH_CHAIN_ID, BENCH_DEFINITION, makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { scratchDir } from "./scratch-dir.js";

/** One signed send per sender (sequence 0), so the run measures the pipeline, not sequence bookkeeping. */
async function signedSends(senders: BenchAccount[], to: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const [i, from] of senders.entries()) {
    const msg = create(MsgSendSchema, {
      fromAddress: from.address,
      toAddress: to,
      amount: [{ denom: "stake", amount: "1" }],
    });
    const any = create(AnySchema, {
      typeUrl: `/${MsgSendSchema.typeName}`,
      value: toBinary(MsgSendSchema, msg),
    });
    out.push(
      await signTxDirect(
        { messages: [any], fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n } },
        [from.signer(BigInt(i), 0n)],
        BENCH_CHAIN_ID,
      ),
    );
  }
  return out;
}

/** Fresh chain, `txs` pre-signed sends: CheckTx each into the mempool, then produce blocks until it is empty. */
async function oneRun(
  opts: BenchOptions,
  run: number,
): Promise<{ committedPerSec: number; checkPerSec: number; blockPerSec: number; blocks: number }> {
  const dir = scratchDir("tx");
  let node: ChainNode | null = null;
  try {
    const senders = Array.from({ length: opts.txs }, (_, i) => benchAccount(`bench-tx-${run}-${i}`));
    const receiver = benchAccount("bench-tx-receiver");
    makeBenchHome({
      home: dir.path,
      funded: senders.map((s) => s.address),
      maxBlockTxs: 5000,
      mempoolSize: Math.max(5000, opts.txs),
    });
    const txs = await signedSends(senders, receiver.address);
    node = await ChainNode.open({ home: dir.path, definition: BENCH_DEFINITION }, { logger: silentLogger });
    await node.producer.produce();
    const t0 = performance.now();
    for (const tx of txs) {
      const r = await node.mempool.add(tx);
      if (r.code !== 0) throw new Error(`CheckTx refused a send: code ${r.code} ${r.log}`);
    }
    const t1 = performance.now();
    let blocks = 0;
    let committed = 0;
    while (node.mempool.size > 0) {
      const b = await node.producer.produce();
      blocks++;
      const results = await node.blocks.results(b.height);
      for (const r of results?.txResults ?? []) {
        if (r.code !== 0) throw new Error(`a send failed in block ${b.height}: code ${r.code} ${r.log}`);
        committed++;
      }
    }
    const t2 = performance.now();
    if (committed !== txs.length) throw new Error(`${committed} of ${txs.length} sends committed`);
    return {
      committedPerSec: txs.length / ((t2 - t0) / 1000),
      checkPerSec: txs.length / ((t1 - t0) / 1000),
      blockPerSec: txs.length / ((t2 - t1) / 1000),
      blocks,
    };
  } finally {
    await node?.close();
    dir.remove();
  }
}

/** Raw secp256k1 verifications per second for about `ms`: the ceiling of any chain that checks signatures. */
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
 * Issue 8.4: signed bank sends committed per second (CheckTx, block execution with ante and signature checks,
 * commit), in-process, against the raw secp256k1 verifications per second of the same machine in the same run.
 */
export async function txThroughput(opts: BenchOptions): Promise<BenchSection> {
  const verifies: number[] = [];
  const runs: Awaited<ReturnType<typeof oneRun>>[] = [];
  for (let i = 0; i < opts.runs; i++) {
    verifies.push(verificationsPerSec(opts.quick ? 500 : 2000));
    runs.push(await oneRun(opts, i));
  }
  const ceiling = figure("secp256k1 verifications/s", "verify/s", verifies);
  return {
    id: "tx",
    title: "Transaction throughput",
    params: { sendsPerRun: opts.txs, runs: opts.runs, blocksPerRun: runs[0]?.blocks ?? 0 },
    figures: [
      ceiling,
      figure(
        "sends committed/s (CheckTx + blocks)",
        "tx/s",
        runs.map((r) => r.committedPerSec),
        ceiling,
      ),
      figure(
        "CheckTx into the mempool/s",
        "tx/s",
        runs.map((r) => r.checkPerSec),
        ceiling,
      ),
      figure(
        "block execution and commit/s",
        "tx/s",
        runs.map((r) => r.blockPerSec),
        ceiling,
      ),
    ],
    notes: [
      "In-process (no network, no JSON-RPC): the figure is the app's pipeline, one core, signatures checked in CheckTx and again in the block as Cosmos does.",
    ],
  };
}
