/**
 * Sizes for the reliability suites. `npm test` runs each suite in its fast form; `npm run soak` sets
 * SOAK_<NAME> variables (from its flags) to run the same suites in their long form.
 */
export function soakSize(name: string, fast: number): number {
  const raw = process.env[`SOAK_${name.toUpperCase()}`];
  if (raw === undefined || raw === "") return fast;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`SOAK_${name.toUpperCase()} must be a positive integer, got "${raw}"`);
  return n;
}

/** True under `npm run soak`, where suites may take minutes. */
export const isSoak = process.env.SOAK === "1";
