import { create, toBinary } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { MsgSendSchema } from "@chaind/proto/sdk/bank/v1beta1/tx_pb";
import { signTxDirect } from "chaind/client/direct-signing";
import { type BenchAccount, benchAccount } from "./bench-accounts.js";
import { BENCH_CHAIN_ID, makeBenchHome } from "./bench-home.js";

/** The shape: this many accounts, each sending its own pre-signed txs in sequence order. */
export const SENDERS = 16;

/** One timed batch of sends: committed per second, and each half of the pipeline alone. */
export interface TxRun {
  committedPerSec: number;
  checkPerSec: number;
  blockPerSec: number;
  blocks: number;
}

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

/**
 * A home for `total` sends from `senders` (funded first in genesis, so their account numbers are their indexes),
 * with room for them all in one block and in the mempool.
 */
export function makeSendsHome(
  dir: string,
  senders: BenchAccount[],
  total: number,
  opts: { timeoutCommitMs?: number; genesisValidator?: boolean } = {},
): void {
  makeBenchHome({
    home: dir,
    funded: senders.map((s) => s.address),
    maxBlockTxs: 10_000,
    mempoolSize: Math.max(10_000, total),
    ...opts,
  });
}

/**
 * Each sender's sends: the first `perSender` of them warm the node up untimed (a node that has run a while has
 * its hot code compiled; a fresh one spends its first seconds compiling it), the next `perSender` are timed.
 */
export async function warmAndTimed(
  senders: BenchAccount[],
  perSender: number,
): Promise<{ warm: Uint8Array[][]; timed: Uint8Array[][] }> {
  const all = await signedSequences(senders, 2 * perSender, benchAccount("bench-tx-receiver").address);
  return { warm: all.map((txs) => txs.slice(0, perSender)), timed: all.map((txs) => txs.slice(perSender)) };
}

/** How many sends a block's results hold; a throw if any of them failed. */
export function countCommitted(
  results: { txResults: { code: number; log: string }[] } | null | undefined,
  height: number,
): number {
  for (const r of results?.txResults ?? [])
    if (r.code !== 0) throw new Error(`a send failed in block ${height}: code ${r.code} ${r.log}`);
  return results?.txResults.length ?? 0;
}
