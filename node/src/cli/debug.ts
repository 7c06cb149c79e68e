import { strictBase64 } from "@chaind/core/base64";
import { cometAddress } from "@chaind/core/comet-address";
import { toHex, toHexUpper } from "@chaind/core/hex";
import type { Argv, CommandModule } from "yargs";
import { chainPrefix } from "../client/chain-prefix.js";
import { CliError } from "../client/cli-error.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { addressFromPubKey } from "../crypto/address.js";
import { decodeBech32, encodeBech32 } from "../crypto/bech32.js";
import type { GlobalArgs } from "./global-options.js";

/** Hex as Go's encoding/hex reads it: an even number of hex digits, either case; names the first bad one. */
function decodeHex(text: string): Uint8Array {
  const bad = text.match(/[^0-9a-fA-F]/);
  if (bad) throw new Error(`invalid byte: ${JSON.stringify(bad[0])}`);
  if (text.length % 2 === 1) throw new Error("odd length hex string");
  return Uint8Array.from(Buffer.from(text, "hex"));
}

/** Go's `%v` of a byte slice: `[10 21 13]`. */
const goBytes = (b: Uint8Array) => `[${[...b].join(" ")}]`;

/** An address given as hex or as bech32 with the chain's account, validator or consensus prefix. */
function parseAddress(text: string, prefix: string): Uint8Array {
  const tries: [string, () => Uint8Array][] = [
    ["hex", () => decodeHex(text)],
    ["bech32 acc", () => decodeBech32(text, prefix)],
    ["bech32 val", () => decodeBech32(text, `${prefix}valoper`)],
    ["bech32 con", () => decodeBech32(text, `${prefix}valcons`)],
  ];
  const errors: string[] = [];
  for (const [tag, decode] of tries) {
    try {
      return decode();
    } catch (e) {
      errors.push(`${tag}: ${(e as Error).message}`);
    }
  }
  throw new CliError(`expected hex or bech32. Got errors: ${errors.join(", ")}`);
}

const PUBKEY_TYPES = {
  "/cosmos.crypto.ed25519.PubKey": { size: 32, address: cometAddress },
  "/cosmos.crypto.secp256k1.PubKey": { size: 33, address: addressFromPubKey },
} as const;
type PubKeyType = keyof typeof PUBKEY_TYPES;

/**
 * A public key as Cosmos's proto JSON (`{"@type":"/cosmos.crypto.ed25519.PubKey","key":"<base64>"}`), or its
 * bare base64 (32 bytes: ed25519, 33: secp256k1).
 */
function parsePubKey(text: string): { type: PubKeyType; key: Uint8Array } {
  if (text.trimStart().startsWith("{")) {
    let doc: { "@type"?: unknown; key?: unknown };
    try {
      doc = JSON.parse(text);
    } catch (e) {
      throw new CliError(`pubkey is not valid JSON: ${(e as Error).message}`);
    }
    const type = doc["@type"];
    if (typeof type !== "string" || !(type in PUBKEY_TYPES))
      throw new CliError(
        `unknown pubkey type ${JSON.stringify(type)}: expected one of ${Object.keys(PUBKEY_TYPES).join(", ")}`,
      );
    const key = typeof doc.key === "string" ? strictBase64(doc.key) : undefined;
    const { size } = PUBKEY_TYPES[type as PubKeyType];
    if (key?.length !== size)
      throw new CliError(`pubkey of type ${type} must hold a base64 key of ${size} bytes`);
    return { type: type as PubKeyType, key };
  }
  const key = strictBase64(text);
  const type = (Object.keys(PUBKEY_TYPES) as PubKeyType[]).find((t) => PUBKEY_TYPES[t].size === key?.length);
  if (!key || !type)
    throw new CliError(
      'pubkey must be proto JSON ({"@type":...,"key":...}) or base64 of 32 (ed25519) or 33 (secp256k1) bytes',
    );
  return { type, key };
}

/** `[10 21 13 255]` (Go's printing of a byte slice) back into bytes. */
function parseRawBytes(text: string): Uint8Array {
  const inner = text.replace(/^\[+/, "").replace(/\]+$/, "");
  return Uint8Array.from(
    inner.split(" ").map((s) => {
      const n = /^\d{1,3}$/.test(s) ? Number(s) : Number.NaN;
      if (!(n <= 255))
        throw new CliError(`invalid byte ${JSON.stringify(s)}: expected a whole number 0..255`);
      return n;
    }),
  );
}

const print = (lines: string[]) => process.stdout.write(`${lines.join("\n")}\n`);

type With<K extends string> = GlobalArgs & Record<K, string>;

/** `chaind debug addr|pubkey|raw-bytes`, printing what Cosmos SDK 0.50's do. */
export const debugCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: "debug",
  describe: "Tool for helping with debugging your application",
  builder: (y) =>
    y
      .command({
        command: "addr <address>",
        describe: "Convert an address between hex and bech32",
        builder: (a: Argv<GlobalArgs>) => a.positional("address", { type: "string", demandOption: true }),
        handler: (a: With<"address">) => {
          const prefix = chainPrefix(a.home);
          const addr = parseAddress(a.address, prefix);
          print([
            `Address: ${goBytes(addr)}`,
            `Address (hex): ${toHexUpper(addr)}`,
            `Bech32 Acc: ${encodeBech32(prefix, addr)}`,
            `Bech32 Val: ${encodeBech32(`${prefix}valoper`, addr)}`,
            `Bech32 Con: ${encodeBech32(`${prefix}valcons`, addr)}`,
          ]);
        },
      } as never)
      .command({
        command: "pubkey <pubkey>",
        describe: "Decode a pubkey from proto JSON (or base64) and display its address",
        builder: (a: Argv<GlobalArgs>) => a.positional("pubkey", { type: "string", demandOption: true }),
        handler: (a: With<"pubkey">) => {
          const { type, key } = parsePubKey(a.pubkey);
          print([`Address: ${toHexUpper(PUBKEY_TYPES[type].address(key))}`, `PubKey Hex: ${toHex(key)}`]);
        },
      } as never)
      .command({
        command: "raw-bytes <raw-bytes>",
        describe: "Convert raw bytes output (eg. [10 21 13 255]) to hex",
        builder: (a: Argv<GlobalArgs>) => a.positional("raw-bytes", { type: "string", demandOption: true }),
        handler: (a: With<"raw-bytes">) => print([toHexUpper(parseRawBytes(a["raw-bytes"]))]),
      } as never)
      .demandCommand(1, SHOW_GROUP_HELP) as never,
  handler: () => {},
};
