import { TurnTaker } from "../../app/event-loop-turn.js";
import { txHash } from "../../app/tx-hash.js";
import type { TxResult } from "../../app/tx-result.js";
import type { ChainNode } from "../../chain/chain-node.js";
import type { BlockProducer, CommittedBlock } from "../../consensus/block-producer.js";
import { base64, base64Length, hexUpper, txResultJson } from "./comet-json.js";
import { JsonRpcError } from "./json-rpc-error.js";
import type { RpcMethod } from "./json-rpc-server.js";
import { bytesParam, optInt } from "./rpc-params.js";

/**
 * `broadcast_tx_async`, `_sync` and `_commit`: txs into the mempool; `check_tx`: CheckTx alone; `unconfirmed_txs`
 * and its count: what waits.
 */
export function mempoolMethods(node: ChainNode): Record<string, RpcMethod> {
  const { mempool, producer } = node;
  return {
    broadcast_tx_async: {
      params: ["tx"],
      run: async (p) => {
        const tx = bytesParam(p, "tx", "base64");
        void mempool.add(tx).then(() => producer.notifyTxs());
        return { code: 0, data: "", log: "", codespace: "", hash: hexUpper(txHash(tx)) };
      },
    },
    broadcast_tx_sync: {
      params: ["tx"],
      run: async (p) => {
        const tx = bytesParam(p, "tx", "base64");
        const r = await mempool.add(tx);
        if (r.code === 0) producer.notifyTxs();
        return checkTxJson(r, txHash(tx));
      },
    },
    broadcast_tx_commit: {
      params: ["tx"],
      run: async (p) => {
        const tx = bytesParam(p, "tx", "base64");
        const hash = txHash(tx);
        const included = waitForTx(producer, hash, node.nodeConfig.rpc.timeoutBroadcastTxCommitMs);
        const check = await mempool.add(tx);
        if (check.code !== 0) {
          included.catch(() => {});
          return {
            check_tx: txResultJson(check),
            tx_result: txResultJson(emptyResult()),
            hash: hexUpper(hash),
            height: "0",
          };
        }
        producer.notifyTxs();
        const { height, result } = await included;
        return {
          check_tx: txResultJson(check),
          tx_result: txResultJson(result),
          hash: hexUpper(hash),
          height: String(height),
        };
      },
    },
    check_tx: {
      params: ["tx"],
      run: async (p) => {
        const r = await node.app.dryCheckTx(bytesParam(p, "tx", "base64"));
        // CometBFT writes ResponseCheckTx with every field, empty bytes as null.
        return { ...txResultJson(r), data: r.data.length ? base64(r.data) : null };
      },
    },
    unconfirmed_txs: {
      params: ["limit"],
      large: true,
      run: async (p, call) => {
        // CometBFT's per-page rule: 30 when absent or below 1, at most 100.
        const requested = optInt(p, "limit") ?? 30;
        const waiting = mempool.txs(requested < 1 ? 30 : Math.min(requested, 100));
        // The txs from the mempool's head that fit in the answer cap, each measured before it is encoded: a
        // shorter list, which n_txs counts (there is no page to skip ahead to, as there is for tx_search).
        const txs: string[] = [];
        let size = 0;
        const turns = new TurnTaker(call.signal);
        for (const tx of waiting) {
          size += base64Length(tx.length) + 3;
          if (size > call.maxResultBytes) break;
          await turns.step();
          txs.push(base64(tx));
        }
        if (txs.length === 0 && waiting.length > 0)
          throw JsonRpcError.internal(
            `the first tx in the mempool takes ${size} bytes of JSON, more than max_response_bytes (${call.maxResultBytes}) in config.toml [rpc]`,
          );
        return {
          n_txs: String(txs.length),
          total: String(mempool.size),
          total_bytes: String(mempool.bytes),
          txs,
        };
      },
    },
    num_unconfirmed_txs: {
      params: [],
      run: async () => ({
        n_txs: String(mempool.size),
        total: String(mempool.size),
        total_bytes: String(mempool.bytes),
        txs: null,
      }),
    },
  };
}

function checkTxJson(r: TxResult, hash: Uint8Array) {
  return { code: r.code, data: base64(r.data), log: r.log, codespace: r.codespace, hash: hexUpper(hash) };
}

/** Resolves when a block holding `hash` commits, or rejects after the timeout. */
function waitForTx(
  producer: BlockProducer,
  hash: Uint8Array,
  timeoutMs: number,
): Promise<{ height: number; result: TxResult }> {
  return new Promise((resolve, reject) => {
    const hex = hexUpper(hash);
    const done = () => {
      clearTimeout(timer);
      offCommit();
      offStop();
    };
    const timer = setTimeout(() => {
      done();
      reject(JsonRpcError.internal(`timed out waiting for tx ${hex} to be included in a block`));
    }, timeoutMs);
    // A waiter never keeps a stopping process alive; its connection is closed with the server.
    timer.unref();
    const offCommit = producer.onCommit((b: CommittedBlock) => {
      const i = (b.block.data?.txs ?? []).findIndex((t) => hexUpper(txHash(t)) === hex);
      if (i < 0) return;
      done();
      resolve({ height: b.height, result: b.txResults[i] });
    });
    // A node stopping (an upgrade halt, a signal) answers at once instead of holding the waiter, and with it
    // the process, until the timeout.
    const offStop = producer.onStop(() => {
      done();
      reject(JsonRpcError.internal(`the node stopped before tx ${hex} was included in a block`));
    });
  });
}

/** The tx_result of a tx CheckTx refused: it never ran. */
function emptyResult(): TxResult {
  return {
    code: 0,
    codespace: "",
    log: "",
    info: "",
    data: new Uint8Array(),
    gasWanted: 0n,
    gasUsed: 0n,
    events: [],
  };
}
