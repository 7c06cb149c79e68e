import { toHex } from "@chaind/core/hex";
import type { TestnetConversion } from "../app/testnet-conversion.js";
import type { BatchOp, StateStore } from "../store/state-store.js";
import { TESTNET_CONVERSION_KEY } from "../store/state-store-keys.js";

interface RecordJson {
  operator: string;
  validator_pub_key: string;
  upgrade?: string;
}

/**
 * The conversion `in-place-testnet` asked for, kept beside the commit record until the block that applies it
 * commits (and deletes it in the same batch): a node stopped or crashed before that block applies it on its
 * next start, and an upgrade halt in that block leaves it for the new binary.
 */
export function testnetConversionOp(t: TestnetConversion): BatchOp {
  const json: RecordJson = { operator: toHex(t.operator), validator_pub_key: toHex(t.validatorPubKey) };
  if (t.upgradeToTrigger !== undefined) json.upgrade = t.upgradeToTrigger;
  return { type: "put", key: TESTNET_CONVERSION_KEY, value: new TextEncoder().encode(JSON.stringify(json)) };
}

/** Deletes the record: part of the batch that commits the conversion. */
export const testnetConversionDoneOp: BatchOp = { type: "del", key: TESTNET_CONVERSION_KEY };

/** The pending conversion, if `in-place-testnet` left one. */
export async function readTestnetConversion(store: StateStore): Promise<TestnetConversion | undefined> {
  const raw = await store.db.get(TESTNET_CONVERSION_KEY);
  if (!raw) return undefined;
  const j = JSON.parse(new TextDecoder().decode(raw)) as RecordJson;
  return {
    operator: new Uint8Array(Buffer.from(j.operator, "hex")),
    validatorPubKey: new Uint8Array(Buffer.from(j.validator_pub_key, "hex")),
    upgradeToTrigger: j.upgrade,
  };
}
