import { describe, expect, it } from "vitest";
import { AddressCodec } from "../../../node/src/app/address-codec.js";
import { ChainError } from "../../../node/src/errors/chain-error.js";

describe("AddressCodec", () => {
  it("decodes a repeated address to the same bytes, each caller getting its own copy", () => {
    const codec = new AddressCodec("sdk");
    const text = codec.toString(Uint8Array.from({ length: 20 }, (_, i) => i + 1));
    const first = codec.fromString(text);
    first.fill(0);
    const again = codec.fromString(text);
    expect([...again]).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it("refuses a bad address every time, not only the first", () => {
    const codec = new AddressCodec("sdk");
    const other = new AddressCodec("cosmos").toString(new Uint8Array(20).fill(7));
    for (let i = 0; i < 2; i++) expect(() => codec.fromString(other)).toThrow(ChainError);
  });
});
