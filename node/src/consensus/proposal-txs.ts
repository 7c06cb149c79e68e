/** What one block may hold: consensus params `block.max_bytes` (of its txs) and `block.max_gas`, and a count. */
export interface ProposalLimits {
  /** Bytes of the txs as the block's protobuf data counts them; 0 or less: none. */
  maxBytes: number;
  /** The sum of the txs' gas limits; 0 or less (-1 in genesis): none. */
  maxGas: bigint;
  maxTxs?: number;
}

/** A tx's bytes in the block's `Data.txs`: its field tag, its length's varint, and itself (CometBFT's count). */
function protoSize(tx: Uint8Array): number {
  let n = tx.length;
  let varint = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    varint++;
  }
  return 1 + varint + tx.length;
}

/**
 * The txs of a proposal, in the order given, as the SDK's default proposal picks them: a tx that does not fit
 * the bytes or gas left is passed over and later smaller ones may still go in, until the block is full. A tx
 * whose gas cannot be read (`gasOf` answers undefined: it does not decode) is left out.
 */
export function proposalTxs(
  txs: Iterable<Uint8Array>,
  limits: ProposalLimits,
  gasOf: (tx: Uint8Array) => bigint | undefined,
): Uint8Array[] {
  const out: Uint8Array[] = [];
  let bytes = 0;
  let gas = 0n;
  const maxTxs = limits.maxTxs ?? Number.POSITIVE_INFINITY;
  for (const tx of txs) {
    if (out.length >= maxTxs) break;
    const size = protoSize(tx);
    if (limits.maxBytes > 0 && bytes + size > limits.maxBytes) continue;
    const wanted = gasOf(tx);
    if (wanted === undefined) continue;
    if (limits.maxGas > 0n && gas + wanted > limits.maxGas) continue;
    out.push(tx);
    bytes += size;
    gas += wanted;
    if ((limits.maxBytes > 0 && bytes >= limits.maxBytes) || (limits.maxGas > 0n && gas >= limits.maxGas))
      break;
  }
  return out;
}
