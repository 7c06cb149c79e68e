import { toHex } from "@chaind/core/hex";

/** A validator as consensus counts it: its ed25519 consensus key and voting power. */
export interface ConsensusValidator {
  pubKey: Uint8Array;
  power: bigint;
}

/**
 * What changed between two validator sets, as ABCI's validator updates say it: each validator whose power is new
 * or different with its power, each one gone with power 0; in key order, so every node says it alike.
 */
export function validatorUpdates(
  before: readonly ConsensusValidator[],
  after: readonly ConsensusValidator[],
): ConsensusValidator[] {
  const was = new Map(before.map((v) => [toHex(v.pubKey), v.power]));
  const now = new Map(after.map((v) => [toHex(v.pubKey), v]));
  const updates: ConsensusValidator[] = [];
  for (const [key, v] of now) if (was.get(key) !== v.power) updates.push(v);
  for (const v of before) if (!now.has(toHex(v.pubKey))) updates.push({ pubKey: v.pubKey, power: 0n });
  return updates.sort((a, b) => Buffer.compare(Buffer.from(a.pubKey), Buffer.from(b.pubKey)));
}
