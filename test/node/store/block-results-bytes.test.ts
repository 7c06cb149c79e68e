import { describe, expect, it } from "vitest";
import { decodeBlockResults, encodeBlockResults } from "../../../node/src/consensus/block-results.js";

describe("stored block results", () => {
  it("are the UTF-8 of their JSON, non-ASCII and lone surrogates included, and read back", () => {
    const res = {
      height: 7,
      events: [
        { type: "begin", attributes: [{ key: "k", value: "é ü 日本 😀 \ud800 \u0000", index: true }] },
      ],
      txResults: [
        {
          code: 0,
          codespace: "",
          log: "ok ✓",
          info: "",
          gasWanted: 2n ** 63n,
          gasUsed: 12n,
          events: [],
          data: Uint8Array.of(1, 2, 255),
        },
      ],
    };
    const bytes = encodeBlockResults(res);
    const json = JSON.stringify({
      height: 7,
      events: res.events,
      txResults: [{ ...res.txResults[0], data: "AQL/", gasWanted: String(2n ** 63n), gasUsed: "12" }],
    });
    expect(Buffer.from(bytes).toString("hex")).toBe(
      Buffer.from(new TextEncoder().encode(json)).toString("hex"),
    );
    expect(decodeBlockResults(bytes)).toEqual(res);
  });
});
