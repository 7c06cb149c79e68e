import { decodeBech32, encodeBech32 } from "../crypto/bech32.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { mapKey } from "../store/map-key.js";

/** Addresses remembered each way, as the Cosmos SDK's address cache: each tx converts the same few many times. */
const CACHED = 10_000;

function remember<K, V>(m: Map<K, V>, k: K, v: V): void {
  if (m.size >= CACHED) m.delete(m.keys().next().value as K);
  m.set(k, v);
}

/** Account addresses as bech32 strings with the chain's prefix; bad input is an invalid-address error. */
export class AddressCodec {
  private readonly texts = new Map<string, string>();
  private readonly bytes = new Map<string, Uint8Array>();

  constructor(readonly prefix: string) {}

  toString(bytes: Uint8Array): string {
    const key = mapKey(bytes);
    let text = this.texts.get(key);
    if (text === undefined) {
      text = encodeBech32(this.prefix, bytes);
      remember(this.texts, key, text);
    }
    return text;
  }

  /** The address's bytes, a fresh copy each call (callers may keep or change them). */
  fromString(text: string, field = "address"): Uint8Array {
    const known = this.bytes.get(text);
    if (known) return known.slice();
    if (text === "") throw ChainError.wrap(SdkErrors.InvalidAddress, `empty ${field}`);
    let bytes: Uint8Array;
    try {
      bytes = decodeBech32(text, this.prefix);
      if (bytes.length === 0 || bytes.length > 255)
        throw new Error(`address length ${bytes.length} is invalid`);
    } catch (e) {
      throw ChainError.wrap(
        SdkErrors.InvalidAddress,
        `invalid ${field} ${JSON.stringify(text)}: ${(e as Error).message}`,
      );
    }
    remember(this.bytes, text, bytes.slice());
    return bytes;
  }
}
