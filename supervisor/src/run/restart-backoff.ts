/** The first wait before starting again a daemon that failed. */
const FIRST_WAIT_MS = 1000;
/** A run this long counts as a start that worked: the waits begin again from the first. */
const RAN_FOR_A_WHILE_MS = 60_000;

/**
 * The waits between restarts of a daemon that keeps exiting with an error: 1 s, doubling up to `maxMs`
 * (VISOR_RESTART_BACKOFF_MAX), so a binary that dies right at start does not spin; 0 restarts at once.
 */
export class RestartBackoff {
  private next = FIRST_WAIT_MS;

  constructor(private readonly maxMs: number) {}

  /** The wait before the next start, given how long the run that just failed lasted. */
  after(ranMs: number): number {
    if (this.maxMs === 0) return 0;
    if (ranMs >= Math.max(RAN_FOR_A_WHILE_MS, this.maxMs)) this.next = FIRST_WAIT_MS;
    const wait = Math.min(this.next, this.maxMs);
    this.next = Math.min(this.next * 2, this.maxMs);
    return wait;
  }
}
