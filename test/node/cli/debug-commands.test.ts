import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pubkeyToRawAddress } from "@cosmjs/amino";
import { bech32 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chaind } from "../helpers/chaind-process.js";

const b32 = (prefix: string, bytes: Uint8Array) => bech32.encode(prefix, bech32.toWords(bytes));
const hexUpper = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex").toUpperCase();

describe("chaind debug", () => {
  let dir: string;
  /** A home without a genesis: the default prefix, sdk. */
  let home: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "chaind-debug-"));
    home = join(dir, "home");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const run = (...args: string[]) => chaind(["debug", ...args, "--home", home]);

  it("addr converts hex and each bech32 form into all of them", async () => {
    const bytes = createHash("sha256").update("debug addr").digest().subarray(0, 20);
    const expected = [
      `Address: [${[...bytes].join(" ")}]`,
      `Address (hex): ${hexUpper(bytes)}`,
      `Bech32 Acc: ${b32("sdk", bytes)}`,
      `Bech32 Val: ${b32("sdkvaloper", bytes)}`,
      `Bech32 Con: ${b32("sdkvalcons", bytes)}`,
    ].join("\n");
    for (const input of [
      Buffer.from(bytes).toString("hex"),
      hexUpper(bytes),
      b32("sdk", bytes),
      b32("sdkvaloper", bytes),
      b32("sdkvalcons", bytes),
    ]) {
      const r = await run("addr", input);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout, input).toBe(expected);
    }
  });

  it("addr of something neither hex nor bech32 of this chain is a one-line error", async () => {
    const r = await run("addr", b32("cosmos", new Uint8Array(20)));
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    expect(r.stderr).toMatch(
      /^Error: expected hex or bech32\. Got errors: hex: .*bech32 acc: .*bech32 con: /,
    );
  });

  it("pubkey prints the address and the key's hex, from proto JSON or bare base64", async () => {
    const ed = createHash("sha256").update("ed25519 key").digest();
    const edAddress = hexUpper(
      pubkeyToRawAddress({ type: "tendermint/PubKeyEd25519", value: ed.toString("base64") }),
    );
    const secp = Buffer.from("AurroA7jvfPd1AadmmOvWM2rJSwipXfRf8yD6pLbA2DJ", "base64");
    const secpAddress = hexUpper(
      pubkeyToRawAddress({ type: "tendermint/PubKeySecp256k1", value: secp.toString("base64") }),
    );
    const cases: [string, string][] = [
      [
        JSON.stringify({ "@type": "/cosmos.crypto.ed25519.PubKey", key: ed.toString("base64") }),
        `Address: ${edAddress}\nPubKey Hex: ${ed.toString("hex")}`,
      ],
      [ed.toString("base64"), `Address: ${edAddress}\nPubKey Hex: ${ed.toString("hex")}`],
      [
        JSON.stringify({ "@type": "/cosmos.crypto.secp256k1.PubKey", key: secp.toString("base64") }),
        `Address: ${secpAddress}\nPubKey Hex: ${secp.toString("hex")}`,
      ],
    ];
    for (const [input, expected] of cases) {
      const r = await run("pubkey", input);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout, input).toBe(expected);
    }
    const bad = await run(
      "pubkey",
      JSON.stringify({ "@type": "/cosmos.crypto.ed25519.PubKey", key: "AAAA" }),
    );
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr).toMatch(
      /^Error: pubkey of type \/cosmos\.crypto\.ed25519\.PubKey must hold .* 32 bytes/,
    );
  });

  it("raw-bytes prints Go's byte-slice output as hex", async () => {
    const bytes = Buffer.from("Hello, playground\xff", "latin1");
    const r = await run("raw-bytes", `[${[...bytes].join(" ")}]`);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(bytes.toString("hex").toUpperCase());
    const bad = await run("raw-bytes", "[72 256]");
    expect(bad.exitCode).not.toBe(0);
    expect(bad.stderr.trim()).toBe('Error: invalid byte "256": expected a whole number 0..255');
  });
});
