/**
 * Resolves after the event loop has had a turn (timers, I/O callbacks): long work that yields here cannot keep
 * block production or other requests waiting, as awaiting already-settled promises would.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
