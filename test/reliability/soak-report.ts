import { appendFileSync } from "node:fs";

/**
 * Figures a reliability suite reports about its run (cases tried, failures, anything lost). Under
 * `npm run soak`, SOAK_REPORT names a JSON-lines file they are appended to, and docs/RELIABILITY.md is written
 * from it; under `npm test` they go nowhere.
 */
export function reportSoakFigures(suite: string, figures: Record<string, number | string>): void {
  const file = process.env.SOAK_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify({ suite, ...figures })}\n`);
}
