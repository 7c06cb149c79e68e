/** Heights listed after `--unsafe-skip-upgrades` in the daemon's own arguments (cosmovisor honours them too). */
export function skipHeightsOf(args: readonly string[]): Set<number> {
  const out = new Set<number>();
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith("--unsafe-skip-upgrades=")) {
      for (const h of a.slice(a.indexOf("=") + 1).split(",")) if (/^\d+$/.test(h)) out.add(Number(h));
    } else if (a === "--unsafe-skip-upgrades") {
      for (let j = i + 1; j < args.length && /^\d+$/.test(args[j]); j++) out.add(Number(args[j]));
    }
  }
  return out;
}
