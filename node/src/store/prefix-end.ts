/** The smallest key greater than every key starting with `prefix`, or undefined when none exists. */
export function prefixEnd(prefix: Uint8Array): Uint8Array | undefined {
  const out = Uint8Array.from(prefix);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i] < 0xff) {
      out[i]++;
      return out.slice(0, i + 1);
    }
  }
  return undefined;
}
