import { create, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { PubKeySchema } from "@chaind/proto/sdk/crypto/secp256k1/keys_pb";
import { Coins } from "../../app/coins.js";
import type { Context } from "../../app/context.js";
import type { DecCoin } from "../../app/dec-coins.js";
import { EventManager } from "../../app/events.js";
import { CacheMultiStore } from "../../store/cache-multi-store.js";

/*
 * A simulated tx (CosmJS, `--gas auto`) comes with an empty fee, empty signatures and maybe no public key.
 * Delivery will carry all three, so simulation charges for stand-ins, as the Cosmos SDK's ante handlers do,
 * and the estimate matches what the signed tx will use.
 */

/** The Cosmos SDK's placeholder public key for simulation (simSecp256k1Pubkey), a valid compressed point. */
const SIM_SECP256K1_PUBKEY = Buffer.from(
  "035AD6810A47F073553FF30D2FCC7E0D3B1C0B74B61A1AAA2582344037151E143A",
  "hex",
);

export function simulatedPubKey(typeUrl: string): Any {
  return {
    $typeName: "google.protobuf.Any",
    typeUrl,
    value: toBinary(PubKeySchema, create(PubKeySchema, { key: SIM_SECP256K1_PUBKEY })),
  };
}

/**
 * Bytes a missing secp256k1 signature will add, counted as the SDK counts them: the amino encoding of a
 * StdSignature holding the public key (field tag and length, 4-byte amino prefix, length, 33 bytes = 40) and
 * a 64-byte signature (tag, length, 64 = 66), plus 6.
 */
export const SIMULATED_SIGNATURE_BYTES = 40 + 66 + 6;

/**
 * With an empty fee, runs the deduction a paid fee will cause (one unit of the first minimum-gas-price denom,
 * through the same `deduct`) on a throwaway branch, for its gas only. The SDK skips it; here it is a fifth of
 * a plain send's gas, more than the clients' 1.3-1.5 margin leaves over.
 */
export async function chargeFeeDeductionGas(
  ctx: Context,
  minGasPrices: readonly DecCoin[],
  deduct: (scratch: Context, fee: Coins) => Promise<void>,
): Promise<void> {
  const denom = minGasPrices[0]?.denom;
  if (!denom) return;
  const scratch = ctx.with({ ms: new CacheMultiStore(ctx.ms), events: new EventManager() });
  try {
    await deduct(scratch, Coins.from([{ denom, amount: 1n }]));
  } catch {
    // A payer who cannot pay will fail delivery for that reason; the estimate need not say more.
  }
}
