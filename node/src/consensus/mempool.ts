import { toHex, toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import type { App } from "../app/app.js";
import { AsyncLock } from "../app/async-lock.js";
import { txHash } from "../app/tx-hash.js";
import { errorResult, type TxResult } from "../app/tx-result.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { type ProposalLimits, proposalTxs } from "./proposal-txs.js";

export interface MempoolOptions {
  size: number;
  maxTxsBytes: number;
  maxTxBytes: number;
}

interface Entry {
  bytes: Uint8Array;
  key: string;
}

/**
 * Transactions that passed CheckTx, in arrival order, waiting for a block. As CometBFT's mempool: a lock keeps
 * CheckTx out while a block commits and the rest are rechecked, so no tx is checked against a check state that
 * has lost the txs still waiting.
 */
export class Mempool {
  private entries: Entry[] = [];
  private keys = new Set<string>();
  private totalBytes = 0;
  private readonly lock = new AsyncLock();

  constructor(
    private readonly opts: MempoolOptions,
    private readonly deps: { app: App; logger: Logger },
  ) {}

  get size(): number {
    return this.entries.length;
  }

  get bytes(): number {
    return this.totalBytes;
  }

  /** The oldest `limit` txs waiting, for RPC `unconfirmed_txs`. */
  txs(limit: number): Uint8Array[] {
    return this.entries.slice(0, limit).map((e) => e.bytes);
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
    const key = toHex(txHash(tx));
    // Outside the lock, so concurrent senders' signatures go to the signature thread together, and a block
    // commits meanwhile.
    if (!this.keys.has(key)) await this.deps.app.precheckTx(tx);
    return this.lock.run(async () => {
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
      if (result.code === 0) this.keep({ bytes: tx, key });
      return result;
    });
  }

  /** The oldest txs that fit a block (proposal-txs.ts). */
  reap(limits: ProposalLimits): Uint8Array[] {
    return proposalTxs(
      this.entries.map((e) => e.bytes),
      limits,
      (tx) => this.deps.app.gasWanted(tx),
    );
  }

  /**
   * Commits a block (`commit` resets the App's check state to the committed state) and, before any new tx is
   * checked, drops the included txs and re-runs CheckTx on the rest in arrival order, evicting those the block
   * made invalid. The work is bounded by the mempool's size limits.
   */
  update<T>(committed: readonly Uint8Array[], commit: () => Promise<T>): Promise<T> {
    return this.lock.run(async () => {
      const result = await commit();
      await this.recheck(committed);
      return result;
    });
  }

  private async recheck(committed: readonly Uint8Array[]): Promise<void> {
    const done = new Set(committed.map((tx) => toHex(txHash(tx))));
    const rest = this.entries.filter((e) => !done.has(e.key));
    this.entries = [];
    this.keys.clear();
    this.totalBytes = 0;
    for (const e of rest) {
      const r = await this.deps.app.checkTx(e.bytes);
      if (r.code === 0) {
        this.keep(e);
        continue;
      }
      this.deps.logger.info("evicted tx from mempool on recheck", {
        hash: toHexUpper(txHash(e.bytes)),
        code: r.code,
        codespace: r.codespace,
        log: r.log,
      });
    }
  }

  private keep(e: Entry): void {
    this.entries.push(e);
    this.keys.add(e.key);
    this.totalBytes += e.bytes.length;
  }
}
