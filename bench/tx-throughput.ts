import { Agent, request } from "node:http";
import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { silentLogger } from "@chaind/core/logger";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { sha256 } from "@noble/hashes/sha2.js";
import { ChainNode } from "chaind/chain/chain-node";
import { signTxDirect } from "chaind/client/direct-signing";
import { secp256k1Backend, signSecp256k1, verifySecp256k1 } from "chaind/crypto/secp256k1";
import { type BenchAccount, benchAccount } from "./bench-accounts.js";
import { BENCH_CHAIN_ID, BENCH_DEFINITION, makeBenchHome } from "./bench-home.js";
import type { BenchOptions } from "./bench-options.js";
import { type BenchSection, figure } from "./bench-result.js";
import { ChaindNode } from "./chaind-node.js";
import { scratchDir } from "./scratch-dir.js";

/** The shape: this many accounts, each sending its own pre-signed txs in sequence order. */
const SENDERS = 16;

/** For each sender (account number = its index in genesis), its sends with sequences 0, 1, 2, ... */
async function signedSequences(
  senders: BenchAccount[],
  perSender: number,
  to: string,
): Promise<Uint8Array[][]> {
  const msgOf = (from: string) =>
    create(AnySchema, {
      typeUrl: `/${MsgSendSchema.typeName}`,
      value: toBinary(
        MsgSendSchema,
        create(MsgSendSchema, {
          fromAddress: from,
          toAddress: to,
          amount: [{ denom: "stake", amount: "1" }],
        }),
      ),
    });
  const out: Uint8Array[][] = [];
  for (const [i, from] of senders.entries()) {
    const txs: Uint8Array[] = [];
    for (let seq = 0; seq < perSender; seq++) {
      txs.push(
        await signTxDirect(
          {
            messages: [msgOf(from.address)],
            fee: { amount: [{ denom: "stake", amount: "2000" }], gasLimit: 200_000n },
          },
          [from.signer(BigInt(i), BigInt(seq))],
          BENCH_CHAIN_ID,
        ),
      );
    }
    out.push(txs);
  }
  return out;
}

interface TxRun {
  committedPerSec: number;
  checkPerSec: number;
  blockPerSec: number;
  blocks: number;
}

function prepareHome(dir: string, senders: BenchAccount[], total: number, timeoutCommitMs?: number): void {
  makeBenchHome({
    home: dir,
    funded: senders.map((s) => s.address),
    maxBlockTxs: 10_000,
    mempoolSize: Math.max(10_000, total),
    timeoutCommitMs,
  });
}

/**
 * Each sender's sends: the first `perSender` of them warm the node up untimed (a node that has run a while has
 * its hot code compiled; a fresh one spends its first seconds compiling it), the next `perSender` are timed.
 */
async function warmAndTimed(
  senders: BenchAccount[],
  perSender: number,
): Promise<{ warm: Uint8Array[][]; timed: Uint8Array[][] }> {
  const all = await signedSequences(senders, 2 * perSender, benchAccount("bench-tx-receiver").address);
  return { warm: all.map((txs) => txs.slice(0, perSender)), timed: all.map((txs) => txs.slice(perSender)) };
}

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
    prepareHome(dir.path, senders, 2 * perSender * SENDERS);
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

function countCommitted(
  results: { txResults: { code: number; log: string }[] } | null | undefined,
  height: number,
): number {
  for (const r of results?.txResults ?? [])
    if (r.code !== 0) throw new Error(`a send failed in block ${height}: code ${r.code} ${r.log}`);
  return results?.txResults.length ?? 0;
}

/**
 * One JSON-RPC call over a kept-alive connection; the answer's `result`, or a throw with its error. node:http, not
 * NodeRpcClient's fetch: the load generator shares the node's two cores, so its own cost per call matters.
 */
function rpcCall(url: URL, agent: Agent, method: string, params: object): Promise<Record<string, unknown>> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": body.length },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const answer = JSON.parse(Buffer.concat(chunks).toString("utf8"));
          if (answer.error) reject(new Error(`${method}: ${JSON.stringify(answer.error)}`));
          else resolve(answer.result);
        });
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * A chaind process: 16 clients at once, each sending its account's txs in order with `broadcast_tx_sync`
 * (each waits for CheckTx before the next, as a wallet does), timed until the node has committed them all.
 */
async function rpcRun(opts: BenchOptions, run: number): Promise<TxRun> {
  const dir = scratchDir("tx-rpc");
  let node: ChaindNode | null = null;
  const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });
  try {
    const senders = Array.from({ length: SENDERS }, (_, i) => benchAccount(`bench-rpc-${run}-${i}`));
    const perSender = Math.ceil(opts.txs / SENDERS);
    prepareHome(dir.path, senders, 2 * perSender * SENDERS, 100);
    const { warm, timed } = await warmAndTimed(senders, perSender);
    node = await ChaindNode.start(dir.path);
    const url = new URL(node.rpcUrl);
    const warmHeight = await committedHeight(url, agent);
    await rpcSends(url, agent, warm, warmHeight);
    return await rpcSends(url, agent, timed, await committedHeight(url, agent));
  } finally {
    agent.destroy();
    await node?.stop();
    dir.remove();
  }
}

/** The last block the app committed: abci_info names it (status may name a block saved but still running). */
async function committedHeight(url: URL, agent: Agent): Promise<number> {
  const info = (await rpcCall(url, agent, "abci_info", {})) as { response: { last_block_height?: string } };
  return Number(info.response.last_block_height ?? 0);
}

/** Each sender's txs in order, the senders at once, timed until all are in blocks committed after `from`. */
async function rpcSends(url: URL, agent: Agent, bySender: Uint8Array[][], from: number): Promise<TxRun> {
  const t0 = performance.now();
  await Promise.all(
    bySender.map(async (txs) => {
      for (const tx of txs) {
        const r = (await rpcCall(url, agent, "broadcast_tx_sync", {
          tx: Buffer.from(tx).toString("base64"),
        })) as { code: number; log: string };
        if (r.code !== 0) throw new Error(`broadcast_tx_sync refused a send: code ${r.code} ${r.log}`);
      }
    }),
  );
  const t1 = performance.now();
  const total = bySender.reduce((n, txs) => n + txs.length, 0);
  let committed = 0;
  let height = from;
  while (committed < total) {
    const latest = await committedHeight(url, agent);
    for (; height < latest; height++) {
      const r = (await rpcCall(url, agent, "block_results", { height: String(height + 1) })) as {
        txs_results: { code: number; log: string }[] | null;
      };
      committed += countCommitted({ txResults: r.txs_results ?? [] }, height + 1);
    }
    if (committed < total) await new Promise((r) => setTimeout(r, 5));
  }
  const t2 = performance.now();
  return {
    committedPerSec: total / ((t2 - t0) / 1000),
    checkPerSec: total / ((t1 - t0) / 1000),
    blockPerSec: 0,
    blocks: height - from,
  };
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
