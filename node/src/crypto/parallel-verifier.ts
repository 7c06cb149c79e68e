import type { Worker } from "node:worker_threads";
import type { Logger } from "@chaind/core/logger";
import { spawnThread, type ThreadScript } from "@chaind/core/thread-script";
import { secp256k1Backend } from "./secp256k1.js";
import {
  type FromSignatureThread,
  packChecks,
  type SignatureCheck,
  type VerifyRequest,
} from "./signature-batch.js";
import { SIGNATURE_THREAD_SCRIPT } from "./signature-thread-script.js";

/**
 * Fewer checks than this in one turn of the event loop are not sent: waking the thread and taking its answer
 * cost the main thread about as much as one verification on this kind of machine.
 */
const MIN_BATCH = 2;

/**
 * Checks per message. Small batches, answered one per turn (see `handBack`), keep the two threads busy at once:
 * the signature thread verifies one batch while this one runs the CheckTx of another. One batch of all the
 * senders waiting would leave each thread idle while the other works.
 */
const MAX_BATCH = 4;

interface Queued {
  check: SignatureCheck;
  settle: (valid: boolean | undefined) => void;
}

/**
 * secp256k1 checks on a second core: the checks asked for in one turn of the event loop go to the signature
 * thread in a few messages, so the main thread pays one wake-up for several verifications. The answer is
 * undefined when a check was not run (too few in its turn, the thread gone): the caller then verifies inline.
 * The thread starts with the first check asked for, so a node's start does not pay for it, and holds the process
 * only while a batch is out. A node without libsecp256k1 (its noble fallback has warned) runs no thread.
 */
export class ParallelVerifier {
  private thread: Worker | undefined;
  private failed = false;
  private queued: Queued[] = [];
  private readonly out = new Map<number, Queued[]>();
  /** Answered batches not yet handed back: one is settled per turn of the event loop. */
  private answered: (() => void)[] = [];
  private nextId = 0;
  private answeredChecks = 0;

  constructor(
    private readonly logger: Logger,
    private readonly script: ThreadScript = SIGNATURE_THREAD_SCRIPT,
  ) {}

  /** Checks the thread has answered since it started: what the node's metrics export. */
  get checked(): number {
    return this.answeredChecks;
  }

  verify(check: SignatureCheck): Promise<boolean | undefined> {
    if (!this.thread && !this.failed) this.thread = this.spawn();
    if (this.failed) return Promise.resolve(undefined);
    return new Promise((settle) => {
      if (this.queued.length === 0) setImmediate(() => this.flush());
      this.queued.push({ check, settle });
    });
  }

  /** Ends the thread; checks still out are answered undefined. */
  async close(): Promise<void> {
    this.failed = true;
    this.settleAll();
    await this.thread?.terminate();
  }

  /** The thread, booting while the checks of this turn gather; undefined (and failed) on noble. */
  private spawn(): Worker | undefined {
    // This thread's choice, loaded first: a release's thread loads the library this thread unpacked.
    if (secp256k1Backend() === "noble") {
      this.failed = true;
      return undefined;
    }
    const thread = spawnThread(this.script);
    thread.unref();
    thread.on("message", (m: FromSignatureThread) => this.received(thread, m));
    thread.on("error", (e) => this.fail(`the signature thread failed: ${e.message}`));
    thread.on("exit", (code) => this.fail(`the signature thread exited with code ${code}`));
    return thread;
  }

  private flush(): void {
    const queued = this.queued;
    this.queued = [];
    const thread = this.thread;
    if (queued.length < MIN_BATCH || this.failed || !thread) {
      for (const q of queued) q.settle(undefined);
      return;
    }
    for (let from = 0; from < queued.length; from += MAX_BATCH) {
      const batch = queued.slice(from, from + MAX_BATCH);
      const id = this.nextId++;
      this.out.set(id, batch);
      const packed = packChecks(batch.map((q) => q.check));
      if (this.out.size === 1) thread.ref();
      thread.postMessage({ id, batch: packed } satisfies VerifyRequest, [packed.buffer]);
    }
  }

  private received(thread: Worker, m: FromSignatureThread): void {
    if (m.kind === "ready") {
      this.logger.info("signature thread ready", { library: "libsecp256k1" });
      return;
    }
    const batch = this.out.get(m.id);
    this.out.delete(m.id);
    if (this.out.size === 0) thread.unref();
    this.answeredChecks += m.verdicts.length;
    if (!batch) return;
    this.handBack(() => {
      for (const [i, q] of batch.entries()) q.settle(m.verdicts[i] === 1);
    });
  }

  /**
   * Settles answered batches one per turn: answers that arrive together would otherwise put all their senders
   * back in step, and the next batches would again be sent, verified and checked all at once.
   */
  private handBack(settle: () => void): void {
    this.answered.push(settle);
    if (this.answered.length > 1) return;
    const next = () => {
      this.answered.shift()?.();
      if (this.answered.length > 0) setImmediate(next);
    };
    setImmediate(next);
  }

  private fail(reason: string): void {
    if (this.failed) return;
    this.failed = true;
    this.settleAll();
    this.logger.warn(`${reason}; signatures are verified on the main thread from now on`);
  }

  private settleAll(): void {
    for (const settle of this.answered) settle();
    this.answered = [];
    for (const q of this.queued) q.settle(undefined);
    this.queued = [];
    for (const batch of this.out.values()) for (const q of batch) q.settle(undefined);
    this.out.clear();
  }
}
