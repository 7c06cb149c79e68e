const HEIGHT_LIST = /^\d+(,\d+)*$/;

/**
 * Heights listed after `--unsafe-skip-upgrades` in the daemon's own arguments (cosmovisor honours them too):
 * `=10,20`, `10,20`, or `10 20`, as the daemon itself reads them.
 */
export function skipHeightsOf(args: readonly string[]): Set<number> {
  const out = new Set<number>();
  const add = (list: string) => {
    for (const h of list.split(",")) out.add(Number(h));
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith("--unsafe-skip-upgrades=")) {
      const list = a.slice(a.indexOf("=") + 1);
      if (HEIGHT_LIST.test(list)) add(list);
    } else if (a === "--unsafe-skip-upgrades") {
      for (let j = i + 1; j < args.length && HEIGHT_LIST.test(args[j]); j++) add(args[j]);
    }
  }
  return out;
}
