import type { DescMessage, Message } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import type { AddressCodec } from "./address-codec.js";
import { msgSigners } from "./msg-signers.js";
import type { TypeRegistry } from "./type-registry.js";

/**
 * The accounts that must sign a tx, as Cosmos' GetSigners: every message's signers in order of first
 * appearance, then the fee payer when it is set and not already among them. Addresses are compared as bytes
 * and returned in canonical bech32; signer infos and signatures line up with this list.
 */
export function txSigners(
  msgs: readonly { desc: DescMessage; message: Message }[],
  feePayer: string,
  addresses: AddressCodec,
): string[] {
  const out: string[] = [];
  const add = (address: string, field: string) => {
    const canonical = addresses.toString(addresses.fromString(address, field));
    if (!out.includes(canonical)) out.push(canonical);
  };
  for (const m of msgs) for (const s of msgSigners(m.desc, m.message, addresses)) add(s, "signer");
  if (feePayer) add(feePayer, "fee payer address");
  return out;
}

/** The same for messages still packed in Anys, as clients hold them. */
export function packedTxSigners(
  messages: readonly Any[],
  feePayer: string,
  types: TypeRegistry,
  addresses: AddressCodec,
): string[] {
  return txSigners(
    messages.map((m) => types.unpack(m)),
    feePayer,
    addresses,
  );
}
