import type { MultisigKey } from "../../crypto/multisig-address.js";
import type { KeyInfo } from "./keyring.js";

export const SECP256K1_PUBKEY_TYPE = "/sdk.crypto.secp256k1.PubKey";
const MULTISIG_PUBKEY_TYPE = "/sdk.crypto.multisig.LegacyAminoPubKey";

/** The proto-JSON form of a public key: {"@type":"/sdk.crypto.secp256k1.PubKey","key":"<base64>"}. */
export function pubKeyJson(pubKey: Uint8Array): { "@type": string; key: string } {
  return { "@type": SECP256K1_PUBKEY_TYPE, key: Buffer.from(pubKey).toString("base64") };
}

/** A multisig key's proto-JSON: its threshold and members' keys. */
export function multisigPubKeyJson(m: MultisigKey): {
  "@type": string;
  threshold: number;
  public_keys: ReturnType<typeof pubKeyJson>[];
} {
  return { "@type": MULTISIG_PUBKEY_TYPE, threshold: m.threshold, public_keys: m.keys.map(pubKeyJson) };
}

/** The JSON of any key the keyring holds. */
export function keyPubKeyJson(info: KeyInfo): object {
  return info.type === "multi" ? multisigPubKeyJson(info.multisig) : pubKeyJson(info.pubKey);
}

/** Cosmos's `keys` output record; `pubkey` is the JSON text of the key, as Cosmos prints it. */
export interface KeyOutput {
  name: string;
  type: "local" | "multi";
  address: string;
  pubkey: string;
  mnemonic?: string;
}

export function keyOutput(info: KeyInfo, mnemonic?: string): KeyOutput {
  const out: KeyOutput = {
    name: info.name,
    type: info.type,
    address: info.address,
    pubkey: JSON.stringify(keyPubKeyJson(info)),
  };
  if (mnemonic !== undefined) out.mnemonic = mnemonic;
  return out;
}

/** The YAML list `keys show/list` print in text mode. */
export function keyOutputsText(outputs: readonly KeyOutput[]): string {
  return outputs
    .map(
      (o) =>
        `- address: ${o.address}\n  name: ${yamlString(o.name)}\n  pubkey: '${o.pubkey}'\n  type: ${o.type}\n`,
    )
    .join("");
}

/** Quotes a name only when YAML would misread it. */
function yamlString(s: string): string {
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(s) && !/^(true|false|null|yes|no|on|off|~|\d.*)$/i.test(s)
    ? s
    : `'${s.replaceAll("'", "''")}'`;
}
