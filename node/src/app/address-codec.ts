import { decodeBech32, encodeBech32 } from "../crypto/bech32.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";

/** Account addresses as bech32 strings with the chain's prefix; bad input is an invalid-address error. */
/** Addresses decoded lately: queries name the same few accounts over and over, and bech32 costs microseconds. */
const DECODED_ENTRIES = 10_000;

export class AddressCodec {
  private readonly decoded = new Map<string, Uint8Array>();

  constructor(readonly prefix: string) {}

  toString(bytes: Uint8Array): string {
    return encodeBech32(this.prefix, bytes);
  }

  fromString(text: string, field = "address"): Uint8Array {
    if (text === "") throw ChainError.wrap(SdkErrors.InvalidAddress, `empty ${field}`);
    const known = this.decoded.get(text);
    if (known) return known.slice();
    try {
      const bytes = decodeBech32(text, this.prefix);
      if (bytes.length === 0 || bytes.length > 255)
        throw new Error(`address length ${bytes.length} is invalid`);
      if (this.decoded.size >= DECODED_ENTRIES) this.decoded.clear();
      this.decoded.set(text, bytes.slice());
      return bytes;
    } catch (e) {
      throw ChainError.wrap(
        SdkErrors.InvalidAddress,
        `invalid ${field} ${JSON.stringify(text)}: ${(e as Error).message}`,
      );
    }
  }
}
