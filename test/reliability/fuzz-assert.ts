import fc from "fast-check";
import { reportSoakFigures } from "./soak-report.js";

/**
 * `fc.assert` for the reliability suites: `runs` cases (sized with soakSize by the caller), seeded from SOAK_SEED
 * when set so a soak failure can be replayed; the cases tried, and a failure with its seed, go to the soak report.
 */
export async function fuzzAssert<Ts extends [unknown, ...unknown[]]>(
  where: { suite: string; property: string; runs: number },
  property: fc.IAsyncProperty<Ts> | fc.IProperty<Ts>,
): Promise<void> {
  const numRuns = where.runs;
  const seed = process.env.SOAK_SEED ? Number(process.env.SOAK_SEED) : undefined;
  const details = await fc.check(property, { numRuns, seed });
  reportSoakFigures(where.suite, {
    property: where.property,
    cases: details.numRuns,
    skipped: details.numSkips,
    result: details.failed ? `FAILED (seed ${details.seed}, path ${details.counterexamplePath})` : "passed",
  });
  if (details.failed) {
    const cause = details.errorInstance;
    const why = cause instanceof Error ? cause.message : String(cause);
    throw new Error(`${fc.defaultReportMessage(details)}\nCaused by: ${why}`, { cause });
  }
}
