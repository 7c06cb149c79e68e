import { Agent, request } from "node:http";
import { countCommitted, SENDERS, type TxRun } from "./signed-sends.js";

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

/**
 * Over a node's RPC (chaind's or CometBFT's: both answer these methods alike), one client per sender, each sending
 * its account's txs in order with `broadcast_tx_sync` (waiting for CheckTx before the next, as a wallet does): the
 * warm-up sends until committed, then the timed ones until committed.
 */
export async function sendOverRpc(
  rpcUrl: string,
  sends: { warm: Uint8Array[][]; timed: Uint8Array[][] },
): Promise<TxRun> {
  const url = new URL(rpcUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: SENDERS });
  try {
    await rpcSends(url, agent, sends.warm, await committedHeight(url, agent));
    return await rpcSends(url, agent, sends.timed, await committedHeight(url, agent));
  } finally {
    agent.destroy();
  }
}
