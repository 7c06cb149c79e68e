import { create, toBinary } from "@bufbuild/protobuf";
import { type Timestamp, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { toHex, toHexUpper } from "@chaind/core/hex";
import type { Logger } from "@chaind/core/logger";
import { type Block, BlockSchema } from "@chaind/proto/tendermint/types/block_pb";
import { EvidenceListSchema } from "@chaind/proto/tendermint/types/evidence_pb";
import {
  type BlockID,
  BlockIDSchema,
  BlockMetaSchema,
  type Commit,
  CommitSchema,
  CommitSigSchema,
  DataSchema,
  HeaderSchema,
  PartSetHeaderSchema,
} from "@chaind/proto/tendermint/types/types_pb";
import { BlockIDFlag } from "@chaind/proto/tendermint/types/validator_pb";
import type { App, FinalizeBlockResult } from "../app/app.js";
import type { AbciEvent } from "../app/events.js";
import { txHash } from "../app/tx-hash.js";
import type { TxResult } from "../app/tx-result.js";
import { sha256 } from "../crypto/sha256.js";
import type { BlockStore } from "./block-store.js";
import { crashPoint } from "./crash-point.js";
import { headerHash } from "./header-hash.js";
import type { Mempool } from "./mempool.js";
import { merkleRoot } from "./merkle.js";
import { type SignState, SignStep } from "./sign-state.js";
import { validatorSetHash } from "./validator-set-hash.js";
import type { ValidatorSigner } from "./validator-signer.js";
import { precommitSignBytes } from "./vote-sign-bytes.js";

export interface BlockProducerOptions {
  chainId: string;
  timeoutCommitMs: number;
  createEmptyBlocks: boolean;
  maxBlockTxs: number;
  maxBlockBytes: number;
  /** Genesis `block.max_gas`: the most the gas limits of a block's txs may add up to (-1: none). */
  maxBlockGas: bigint;
  /** CometBFT's block protocol version, reported in headers. */
  blockProtocol: number;
  appProtocol: () => number;
  /** The validator's voting power now, as its headers' validators hash counts it. */
  votingPower: () => bigint;
}

export interface CommittedBlock {
  height: number;
  block: Block;
  hash: Uint8Array;
  blockId: BlockID;
  txResults: TxResult[];
  /** The block-level events of FinalizeBlock (begin and end block phases). */
  events: AbciEvent[];
  appHash: Uint8Array;
  ms: number;
}

/** Why the producer stopped making blocks. */
export type StopReason =
  | { kind: "requested" }
  | { kind: "halt"; reason: string }
  | { kind: "error"; error: Error };

const utf8 = new TextEncoder();

function resultBytes(r: TxResult): Uint8Array {
  return sha256(utf8.encode(`${r.code}|${toHex(r.data)}|${r.gasWanted}|${r.gasUsed}`));
}

/** A block's LastResultsHash, as the next header names it. */
function resultsHash(results: readonly TxResult[]): Uint8Array {
  return merkleRoot(results.map(resultBytes));
}

/**
 * Single-validator block production: every timeout_commit, reap the mempool, finalize, and commit the block
 * and its state in one batch. Stopping waits for the block in progress.
 */
export class BlockProducer {
  private running = false;
  private loop: Promise<StopReason> | null = null;
  private wake: (() => void) | null = null;
  private readonly listeners = new Set<(b: CommittedBlock) => void>();
  private readonly stopListeners = new Set<(r: StopReason) => void>();
  /** The last block this producer committed and its results' merkle root: the next header names it. */
  private lastResults: { height: number; hash: Uint8Array } | null = null;
  /** A hook consulted after each commit; a returned string halts the node with that reason. */
  haltCheck: (b: CommittedBlock) => string | null = () => null;

  constructor(
    private readonly opts: BlockProducerOptions,
    private readonly deps: {
      app: App;
      blocks: BlockStore;
      mempool: Mempool;
      signer: ValidatorSigner;
      signState: SignState;
      logger: Logger;
    },
  ) {}

  onCommit(fn: (b: CommittedBlock) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Called once when production stops (requested, halted or failed), so waiters need not wait it out. */
  onStop(fn: (r: StopReason) => void): () => void {
    this.stopListeners.add(fn);
    return () => this.stopListeners.delete(fn);
  }

  /** Starts the loop; the promise settles when production stops, saying why. */
  start(): Promise<StopReason> {
    if (this.loop) return this.loop;
    this.running = true;
    this.loop = this.run().then((reason) => {
      // Stopped production may be started again (tests do; an operator's node restarts as a new process).
      this.loop = null;
      for (const l of [...this.stopListeners]) l(reason);
      return reason;
    });
    return this.loop;
  }

  async stop(): Promise<StopReason | null> {
    this.running = false;
    this.wake?.();
    return this.loop ? this.loop : null;
  }

  /** Lets the loop produce now instead of sleeping out timeout_commit (used when txs arrive with no empty blocks). */
  notifyTxs(): void {
    if (!this.opts.createEmptyBlocks) this.wake?.();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = done;
    });
  }

  private async run(): Promise<StopReason> {
    try {
      while (this.running) {
        // A block saved but never applied (a halt or crash in it) runs first, without waiting for txs.
        // A block this binary will halt in (an upgrade it has no handler for) is proposed at once: waiting out
        // timeout_commit first would only lengthen the upgrade's downtime, the txs it gathers run after the halt.
        if (
          this.deps.blocks.unappliedHeight === undefined &&
          !(await this.deps.app.haltsAt(this.deps.blocks.nextHeight))
        ) {
          await this.sleep(this.opts.timeoutCommitMs);
          if (!this.running) break;
          if (!this.opts.createEmptyBlocks && this.deps.mempool.size === 0) continue;
        }
        const committed = await this.produce();
        for (const l of this.listeners) l(committed);
        const halt = this.haltCheck(committed);
        if (halt) return { kind: "halt", reason: halt };
      }
      return { kind: "requested" };
    } catch (e) {
      return { kind: "error", error: e as Error };
    } finally {
      this.running = false;
    }
  }

  /**
   * The commit of the latest block, which no block carries yet: the validator's precommit as its sign state
   * recorded it (CometBFT's "seen commit"); undefined when the record is of another block.
   */
  async seenCommit(height: number): Promise<Commit | undefined> {
    const { blocks, signState, signer } = this.deps;
    const meta = await blocks.meta(height);
    const last = signState.lastSigned;
    if (!meta?.blockId || !meta.header?.time || last.height !== BigInt(height) || !last.signature)
      return undefined;
    const bytes = precommitSignBytes(this.opts.chainId, BigInt(height), 0, meta.blockId, meta.header.time);
    if (!last.signBytes || Buffer.compare(last.signBytes, bytes) !== 0) return undefined;
    return create(CommitSchema, {
      height: BigInt(height),
      round: 0,
      blockId: meta.blockId,
      signatures: [
        create(CommitSigSchema, {
          blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
          validatorAddress: signer.address,
          timestamp: meta.header.time,
          signature: last.signature,
        }),
      ],
    });
  }

  /** The validator's precommit of a block: made and recorded in its sign state before anyone can see it. */
  private precommit(height: number, blockId: BlockID, time: Timestamp): Promise<Uint8Array> {
    const { signer, signState } = this.deps;
    const bytes = precommitSignBytes(this.opts.chainId, BigInt(height), 0, blockId, time);
    return signState.sign(BigInt(height), 0, SignStep.Precommit, bytes, (b) => signer.sign(b));
  }

  /**
   * Executes and commits the next block: the saved one the app has not applied yet, if there is one, else a new
   * block, which is saved before the app runs it (as CometBFT does), so a halt or crash inside it leaves it
   * stored and the next start runs exactly that block again.
   */
  async produce(): Promise<CommittedBlock> {
    const started = performance.now();
    const { app, blocks, mempool } = this.deps;
    const unapplied = blocks.unappliedHeight;
    let block: Block;
    let hash: Uint8Array;
    let blockId: BlockID;
    let saving: Promise<void> | undefined;
    if (unapplied === undefined) {
      ({ block, hash, blockId, saving } = await this.newBlock());
    } else {
      const meta = await blocks.meta(unapplied);
      const stored = await blocks.block(unapplied);
      if (!meta || !stored) throw new Error(`saved block ${unapplied} cannot be read back`);
      this.deps.logger.info("executing saved block", { height: unapplied });
      block = stored;
      blockId = meta.blockId!;
      hash = blockId.hash;
    }
    const header = block.header!;
    const height = Number(header.height);
    const txs = block.data?.txs ?? [];
    const time = new Date(Number(header.time!.seconds) * 1000 + Math.floor(header.time!.nanos / 1e6));
    // The app runs the block while its save is synced: what it does stays in memory until the commit below, and
    // every way out of here (commit, halt, error) waits for the save first, so the block is stored by then.
    const saved = (saving ?? Promise.resolve()).then(() => crashPoint("block-saved", height));
    saved.catch(() => {}); // awaited below; a failure must not count as unhandled while the block runs
    let result: FinalizeBlockResult;
    try {
      result = await app.finalizeBlock({ height, time, txs, proposerAddress: header.proposerAddress });
    } finally {
      await saved;
    }
    crashPoint("block-executed", height);
    const ops = blocks.ops({ height, txResults: result.txResults, events: result.events }, txs.map(txHash));
    const { appHash } = await mempool.update(txs, () => app.commit(ops));
    this.lastResults = { height, hash: resultsHash(result.txResults) };
    const ms = Math.round(performance.now() - started);
    this.deps.logger.info("committed block", {
      height,
      txs: txs.length,
      app_hash: toHexUpper(appHash),
      block_hash: toHexUpper(hash),
      ms,
    });
    return {
      height,
      block,
      hash,
      blockId,
      txResults: result.txResults,
      events: result.events,
      appHash,
      ms,
    };
  }

  /**
   * Makes the next block from the mempool and starts saving it (`saving` settles once it is synced); everything
   * in it is known before execution.
   */
  private async newBlock(): Promise<{
    block: Block;
    hash: Uint8Array;
    blockId: BlockID;
    saving: Promise<void>;
  }> {
    const { app, blocks, mempool, signer } = this.deps;
    const height = blocks.nextHeight;
    // The chain's first block (1, or genesis initial_height) has no block before it.
    const prev = blocks.base > 0 ? await blocks.meta(height - 1) : undefined;
    const prevTime = prev?.header?.time
      ? Number(prev.header.time.seconds) * 1000 + Math.floor(prev.header.time.nanos / 1e6)
      : 0;
    const time = new Date(Math.max(Date.now(), prevTime + 1));
    const txs = mempool.reap({
      maxTxs: this.opts.maxBlockTxs,
      maxBytes: this.opts.maxBlockBytes,
      maxGas: this.opts.maxBlockGas,
    });
    const prevAppHash = app.info().lastBlockAppHash;

    const lastBlockId =
      prev?.blockId ?? create(BlockIDSchema, { partSetHeader: create(PartSetHeaderSchema) });
    // Kept from the last commit; read back (and decoded whole) only for the first block after a start.
    const lastResultsHash =
      this.lastResults?.height === height - 1
        ? this.lastResults.hash
        : resultsHash((prev ? await blocks.results(height - 1) : undefined)?.txResults ?? []);
    // The previous block's precommit, recorded when it was saved (or now, if the node stopped in between).
    const lastCommit = create(CommitSchema, {
      height: BigInt(prev ? height - 1 : 0),
      round: 0,
      blockId: lastBlockId,
      signatures: prev?.header?.time
        ? [
            create(CommitSigSchema, {
              blockIdFlag: BlockIDFlag.BLOCK_ID_FLAG_COMMIT,
              validatorAddress: signer.address,
              timestamp: prev.header.time,
              signature: await this.precommit(height - 1, lastBlockId, prev.header.time),
            }),
          ]
        : [],
    });
    const validatorsHash = validatorSetHash([
      { pubKey: signer.pubKey, votingPower: this.opts.votingPower() },
    ]);
    const header = create(HeaderSchema, {
      version: { block: BigInt(this.opts.blockProtocol), app: BigInt(this.opts.appProtocol()) },
      chainId: this.opts.chainId,
      height: BigInt(height),
      time: timestampFromDate(time),
      lastBlockId,
      // CometBFT's Commit.Hash: the Merkle root of the commit's signatures.
      lastCommitHash: merkleRoot(lastCommit.signatures.map((sig) => toBinary(CommitSigSchema, sig))),
      dataHash: merkleRoot(txs.map(txHash)),
      validatorsHash,
      nextValidatorsHash: validatorsHash,
      consensusHash: sha256(new TextEncoder().encode(this.opts.chainId)),
      appHash: prevAppHash,
      lastResultsHash,
      evidenceHash: merkleRoot([]),
      proposerAddress: signer.address,
    });
    const block = create(BlockSchema, {
      header,
      data: create(DataSchema, { txs }),
      evidence: create(EvidenceListSchema),
      lastCommit,
    });
    const blockBytes = toBinary(BlockSchema, block);
    const hash = headerHash(header);
    const blockId = create(BlockIDSchema, {
      hash,
      partSetHeader: create(PartSetHeaderSchema, { total: 1, hash: sha256(blockBytes) }),
    });
    const meta = create(BlockMetaSchema, {
      blockId,
      blockSize: BigInt(blockBytes.length),
      header,
      numTxs: BigInt(txs.length),
    });
    // Saved first, then signed: a block is signed only once stored, so the block a signature names is always
    // the one a restart runs again; the signature leaves the node only in the next block.
    const saving = blocks
      .save(block, meta, blockBytes)
      .then(() => this.precommit(height, blockId, header.time!));
    return { block, hash, blockId, saving: saving.then(() => {}) };
  }
}
