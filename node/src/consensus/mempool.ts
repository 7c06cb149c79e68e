import { toHex } from "@chaind/core/hex";
import { sha256 } from "@noble/hashes/sha2.js";
import type { App } from "../app/app.js";
import { errorResult, type TxResult } from "../app/tx-result.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

export interface MempoolOptions {
  size: number;
  maxTxsBytes: number;
  maxTxBytes: number;
}

interface Entry {
  bytes: Uint8Array;
  key: string;
}

/** Transactions that passed CheckTx, in arrival order, waiting for a block. */
export class Mempool {
  private entries: Entry[] = [];
  private keys = new Set<string>();
  private totalBytes = 0;

  constructor(
    private readonly opts: MempoolOptions,
    private readonly deps: { app: App },
  ) {}

  get size(): number {
    return this.entries.length;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  async add(tx: Uint8Array): Promise<TxResult> {
    const reject = (e: ChainError) => errorResult(e, 0n, 0n);
    if (tx.length > this.opts.maxTxBytes) {
      return reject(
        ChainError.wrap(
          SdkErrors.TxTooLarge,
          `tx too large. Max size is ${this.opts.maxTxBytes}, but got ${tx.length}`,
        ),
      );
    }
    const key = toHex(sha256(tx));
    if (this.keys.has(key))
      return reject(ChainError.wrap(SdkErrors.TxInMempoolCache, "tx already exists in cache"));
    if (this.entries.length >= this.opts.size || this.totalBytes + tx.length > this.opts.maxTxsBytes) {
      return reject(
        ChainError.wrap(
          SdkErrors.MempoolIsFull,
          `mempool is full: number of txs ${this.entries.length} (max: ${this.opts.size})`,
        ),
      );
    }
    const result = await this.deps.app.checkTx(tx);
    // Another add of the same tx may have finished while CheckTx ran.
    if (result.code === 0 && !this.keys.has(key)) {
      this.entries.push({ bytes: tx, key });
      this.keys.add(key);
      this.totalBytes += tx.length;
    }
    return result;
  }

  /** The oldest txs that fit a block. */
  reap(maxTxs: number, maxBytes: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let bytes = 0;
    for (const e of this.entries) {
      if (out.length >= maxTxs || (maxBytes > 0 && bytes + e.bytes.length > maxBytes)) break;
      out.push(e.bytes);
      bytes += e.bytes.length;
    }
    return out;
  }

  /**
   * After a commit: drop the included txs and re-run CheckTx on the rest against the new state, so a tx
   * whose sequence went stale leaves the pool instead of failing in every later block.
   */
  async update(committed: readonly Uint8Array[]): Promise<void> {
    const done = new Set(committed.map((tx) => toHex(sha256(tx))));
    const rest = this.entries.filter((e) => !done.has(e.key));
    this.entries = [];
    this.keys.clear();
    this.totalBytes = 0;
    for (const e of rest) {
      const r = await this.deps.app.checkTx(e.bytes);
      if (r.code !== 0 || this.keys.has(e.key)) continue;
      this.entries.push(e);
      this.keys.add(e.key);
      this.totalBytes += e.bytes.length;
    }
  }
}
