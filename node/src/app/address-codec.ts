import { decodeBech32, encodeBech32 } from "../crypto/bech32.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { mapKey } from "../store/map-key.js";
import { BoundedMap } from "./bounded-map.js";

/** Addresses remembered each way, as the Cosmos SDK's address cache: each tx converts the same few many times. */
const CACHED = 10_000;

/** Account addresses as bech32 strings with the chain's prefix; bad input is an invalid-address error. */
export class AddressCodec {
  private readonly texts = new BoundedMap<string, string>(CACHED);
  private readonly bytes = new BoundedMap<string, Uint8Array>(CACHED);

  constructor(readonly prefix: string) {}

  toString(bytes: Uint8Array): string {
    const key = mapKey(bytes);
    let text = this.texts.get(key);
    if (text === undefined) {
      text = encodeBech32(this.prefix, bytes);
      this.texts.set(key, text);
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
    this.bytes.set(text, bytes.slice());
    return bytes;
  }
}
