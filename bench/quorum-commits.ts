/**
 * CometBFT's line when a node has a block's commit (+2/3 precommits) and hands it to the App: logged in
 * consensus only, not when a restarted node replays a stored block to its App. The block a node halts in for an
 * upgrade was committed so before the halt; the first block after is the first the restarted network agrees on.
 */
const COMMITTED = /finalizing commit of block\b.*height=(\d+)/;

/** Two heights committed one after the other, and when (performance.now()). */
export interface CommitGap {
  ms: number;
  before: number;
  after: number;
  beforeAt: number;
  afterAt: number;
}

/**
 * When each node of a network committed each height, read off its log lines as they arrive; a height counts as
 * committed by the network once a quorum of its validators (more than two thirds, the stakes equal) has
 * committed it, which is when the chain can build on it.
 */
export class QuorumCommits {
  /** height -> node -> when its commit line arrived (performance.now()). */
  private readonly seen = new Map<number, Map<string, number>>();

  constructor(readonly validators: number) {}

  /** A line of a node's output (the network's echo). */
  observe(node: string, line: string): void {
    const m = line.match(COMMITTED);
    if (!m) return;
    const h = Number(m[1]);
    const byNode = this.seen.get(h) ?? new Map<string, number>();
    if (!byNode.has(node)) byNode.set(node, performance.now());
    this.seen.set(h, byNode);
  }

  /** Validators that hold more than two thirds of the power when every stake is equal. */
  get quorum(): number {
    return Math.floor((2 * this.validators) / 3) + 1;
  }

  /** When a quorum had committed the height, or undefined if it has not (yet). */
  at(height: number): number | undefined {
    const times = [...(this.seen.get(height)?.values() ?? [])].sort((a, b) => a - b);
    return times.length >= this.quorum ? times[this.quorum - 1] : undefined;
  }

  /**
   * The longest wait between two heights the network committed one after the other, among `from`..`to`: the
   * outage a halt or a restart caused, measured the same way for both.
   */
  longestGap(from: number, to: number): CommitGap {
    let best: CommitGap = { ms: Number.NaN, before: 0, after: 0, beforeAt: 0, afterAt: 0 };
    let prev: { h: number; t: number } | null = null;
    for (let h = from; h <= to; h++) {
      const t = this.at(h);
      if (t === undefined) continue;
      if (prev && !(t - prev.t <= best.ms))
        best = { ms: t - prev.t, before: prev.h, after: h, beforeAt: prev.t, afterAt: t };
      prev = { h, t };
    }
    if (Number.isNaN(best.ms)) throw new Error(`no two heights committed by a quorum in ${from}..${to}`);
    return best;
  }
}
