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

/** Renders milliseconds as Go's `Duration.String` does (`500ms`, `1.5s`, `5m0s`, `1h2m3s`), as cosmovisor prints them. */
export function formatGoDuration(ms: number): string {
  let ns = Math.round(Math.abs(ms) * 1e6);
  const sign = ms < 0 && ns > 0 ? "-" : "";
  if (ns === 0) return "0s";
  if (ns < 1e9) {
    const [unit, per] = ns < 1e3 ? ["ns", 1] : ns < 1e6 ? ["µs", 1e3] : ["ms", 1e6];
    return `${sign}${ns / (per as number)}${unit}`;
  }
  const h = Math.floor(ns / 3.6e12);
  ns -= h * 3.6e12;
  const m = Math.floor(ns / 6e10);
  ns -= m * 6e10;
  return `${sign}${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${ns / 1e9}s`;
}
