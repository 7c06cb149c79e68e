/**
 * The scrypt parameters a key file may ask for. Files are input (an armored key handed to an operator, a keyring
 * copied from elsewhere): without bounds, n=2^20 with r=32 would have `keys import` allocate 4 GiB, and a large p
 * run for minutes. 256 MiB and about a second (Ethereum keystores' n=2^18, r=8, p=1) is the ceiling; the keyring
 * itself writes n=2^15, r=8, p=1.
 */
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;
/** n*r*p, scrypt's work: 2^18 * 8, the ceiling above with p=1. */
const MAX_WORK = 2 ** 21;

/** Whether scrypt(n, r, p) is well formed and within what a key file may ask; the reason when not. */
export function scryptOutOfBounds(n: number, r: number, p: number): string | null {
  if (![n, r, p].every(Number.isSafeInteger) || n < 2 || (n & (n - 1)) !== 0 || r < 1 || p < 1)
    return `n must be a power of two from 2, r and p at least 1 (n=${n}, r=${r}, p=${p})`;
  if (128 * n * r > MAX_MEMORY_BYTES)
    return `n=${n}, r=${r} would take ${Math.round((128 * n * r) / 2 ** 20)} MiB, over the ${MAX_MEMORY_BYTES / 2 ** 20} MiB allowed`;
  if (n * r * p > MAX_WORK) return `n*r*p=${n * r * p} is over the ${MAX_WORK} allowed`;
  return null;
}

/** Node's scrypt `maxmem` for parameters within bounds, with room for its own overhead. */
export function scryptMaxmem(n: number, r: number): number {
  return 128 * n * r + 2 ** 20;
}
