import { median, ratio } from "./median-ratio.js";

/** One measured figure: the median of its runs, and how it compares to the ceiling measured beside it. */
export interface Figure {
  /** What was measured, e.g. "current_plan req/s". */
  name: string;
  unit: string;
  median: number;
  samples: number[];
  /** The ceiling (or floor) this figure is compared to, by its name in the same section. */
  ceiling?: string;
  /** median / ceiling's median: for throughput 1.0 is the ceiling, for latencies and durations the floor. */
  ratio?: number;
}

/** One benchmark's outcome: its figures, and the sizes it ran at (scaled down in --quick). */
export interface BenchSection {
  id: string;
  title: string;
  /** Sizes and settings the figures were measured with, e.g. { connections: 10, durationSec: 5 }. */
  params: Record<string, string | number | boolean>;
  figures: Figure[];
  /** Short remarks measured in the run (e.g. "store grew 812 bytes per block"). */
  notes: string[];
}

/** A benchmark this machine cannot run (a binary it needs is missing): one line saying why, and no figures. */
export interface BenchSkipped {
  skipped: string;
}

/** A figure from its samples (rounded to 2 decimals), with its ratio to `ceiling` when one is given. */
export function figure(name: string, unit: string, samples: number[], ceiling?: Figure): Figure {
  const f: Figure = { name, unit, median: round2(median(samples)), samples: samples.map(round2) };
  if (ceiling) {
    f.ceiling = ceiling.name;
    f.ratio = ratio(f.median, ceiling.median);
  }
  return f;
}

const round2 = (x: number) => Math.round(x * 100) / 100;
