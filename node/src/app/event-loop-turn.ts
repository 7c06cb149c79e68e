/**
 * Resolves after the event loop has had a turn (timers, I/O callbacks): long work that yields here cannot keep
 * block production or other requests waiting, as awaiting already-settled promises would.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Paces a long loop (a page of txs, a walk over blocks): each step gives the event loop a turn once the loop has
 * worked `sliceMs` without one, so block production keeps its pace without the loop paying for a turn at every
 * step, and each step stops the loop (throwing the signal's reason) once its caller has given up.
 */
export class TurnTaker {
  private since = performance.now();

  constructor(
    private readonly signal?: AbortSignal,
    private readonly sliceMs = 2,
  ) {}

  async step(): Promise<void> {
    this.signal?.throwIfAborted();
    if (performance.now() - this.since < this.sliceMs) return;
    await nextTurn();
    this.since = performance.now();
    this.signal?.throwIfAborted();
  }
}
