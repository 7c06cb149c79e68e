const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Parses a Go duration ("300ms", "1m30s", "5s") into milliseconds; config files follow CometBFT's format. */
export function parseGoDuration(text: string): number {
  const s = text.trim();
  if (s === "0") return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/y;
  let total = 0;
  let pos = 0;
  while (pos < s.length) {
    re.lastIndex = pos;
    const m = re.exec(s);
    if (!m) throw new Error(`invalid duration "${text}": expected a Go duration such as 300ms, 5s or 1m30s`);
    total += Number(m[1]) * UNIT_MS[m[2]];
    pos = re.lastIndex;
  }
  if (s.length === 0) throw new Error(`invalid duration "${text}": empty`);
  return total;
}

/** Renders milliseconds the way Go prints a duration, for config templates. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
