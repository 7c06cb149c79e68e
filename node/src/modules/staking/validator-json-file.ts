import { readFileSync } from "node:fs";
import { create, type JsonValue } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import { type PubKey, PubKeySchema } from "@chaind/proto/sdk/crypto/ed25519/keys_pb";
import {
  type CommissionRates,
  CommissionRatesSchema,
  type Description,
  DescriptionSchema,
} from "@chaind/proto/sdk/staking/v1beta1/staking_pb";
import { formatDecWire, parseDec } from "../../app/dec.js";
import { fromProtoJson } from "../../app/proto-json.js";
import type { TypeRegistry } from "../../app/type-registry.js";
import { CliError } from "../../client/cli-error.js";
import { parseCoinArgument } from "../../client/coin-arguments.js";

/** The keys of the SDK's create-validator JSON file (`simd tx staking create-validator validator.json`). */
const KEYS = [
  "pubkey",
  "amount",
  "moniker",
  "identity",
  "website",
  "security",
  "details",
  "commission-rate",
  "commission-max-rate",
  "commission-max-change-rate",
  "min-self-delegation",
] as const;

/** What a create-validator file gives a MsgCreateValidator (all but the operator address, the signer's). */
export interface ValidatorFile {
  pubkey: Any;
  amount: { denom: string; amount: string };
  description: Description;
  commission: CommissionRates;
  minSelfDelegation: string;
}

/**
 * Reads a create-validator JSON file as SDK 0.50 does, with its error texts where it has one: `pubkey` as
 * `chaind comet show-validator` prints it, `amount` one coin, the commission rates as decimals ("0.1"),
 * `min-self-delegation` a positive integer. An unknown key is refused rather than ignored, so a misspelt
 * optional field is not silently lost.
 */
export function readValidatorFile(path: string, types: TypeRegistry): ValidatorFile {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new CliError(`cannot read validator file ${path}: ${(e as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new CliError(`validator file ${path}: expected a JSON object`);
  const unknown = Object.keys(doc).filter((k) => !(KEYS as readonly string[]).includes(k));
  if (unknown.length > 0)
    throw new CliError(`validator file ${path}: unknown field ${unknown[0]} (known: ${KEYS.join(", ")})`);
  const text = (key: (typeof KEYS)[number]) => {
    const v = doc[key] ?? "";
    if (typeof v !== "string") throw new CliError(`validator file ${path}: ${key} must be a string`);
    return v;
  };

  if (text("amount") === "") throw new CliError("must specify amount of coins to bond");
  const amount = parseCoinArgument(text("amount"));
  if (doc.pubkey === undefined || doc.pubkey === null)
    throw new CliError("must specify the JSON encoded pubkey");
  const pubkey = consensusPubKey(doc.pubkey as JsonValue, types);
  if (text("moniker") === "") throw new CliError("must specify the moniker name");
  const rates = [text("commission-rate"), text("commission-max-rate"), text("commission-max-change-rate")];
  if (rates.some((r) => r === "")) throw new CliError("must specify all validator commission parameters");
  const [rate, maxRate, maxChangeRate] = rates.map((r, i) => {
    try {
      return formatDecWire(parseDec(r));
    } catch {
      throw new CliError(`invalid ${KEYS[7 + i].replaceAll("-", " ")} ${JSON.stringify(r)}: not a decimal`);
    }
  });
  const minSelf = text("min-self-delegation");
  if (minSelf === "") throw new CliError("must specify minimum self delegation");
  if (!/^\d+$/.test(minSelf) || BigInt(minSelf) === 0n)
    throw new CliError("minimum self delegation must be a positive integer: invalid request");
  return {
    pubkey,
    amount,
    description: create(DescriptionSchema, {
      moniker: text("moniker"),
      identity: text("identity"),
      website: text("website"),
      securityContact: text("security"),
      details: text("details"),
    }),
    commission: create(CommissionRatesSchema, { rate, maxRate, maxChangeRate }),
    minSelfDelegation: BigInt(minSelf).toString(),
  };
}

/** An ed25519 consensus key in either namespace, packed under ours as the chain stores it. */
function consensusPubKey(json: JsonValue, types: TypeRegistry): Any {
  try {
    const { desc, message } = types.unpack(fromProtoJson(AnySchema, json, types));
    if (desc.typeName !== PubKeySchema.typeName) throw new Error(`${desc.typeName} is not an ed25519 key`);
    const key = message as PubKey;
    if (key.key.length !== 32) throw new Error(`an ed25519 key is 32 bytes, got ${key.key.length}`);
    return types.pack(PubKeySchema, key);
  } catch (e) {
    throw new CliError(`invalid pubkey ${JSON.stringify(json)}: ${(e as Error).message}`);
  }
}
