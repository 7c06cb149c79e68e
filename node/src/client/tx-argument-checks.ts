import { type DescField, type DescMessage, getOption, type Message } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { scalar } from "@chaind/proto/sdk/scalar/v1/scalar_pb";
import { validateDenom } from "../app/coins.js";
import type { TypeRegistry } from "../app/type-registry.js";
import { decodeBech32 } from "../crypto/bech32.js";
import { CliError } from "./cli-error.js";

const ACCOUNT_ADDRESS = "sdk.AddressString";
const VALIDATOR_ADDRESS = "sdk.ValidatorAddressString";
const COIN = "sdk.base.v1beta1.Coin";

/**
 * Checks the addresses and coins of the messages a tx command built, as the SDK's CLI checks its arguments
 * before it signs: every field annotated as an account or operator address must be bech32 under this chain's
 * prefix, every coin a valid denom with an integer amount. Read off the messages, so every tx command (the
 * chain's and each module's) is covered; a bad argument fails here, before a passphrase is asked or the node
 * is called, instead of in a block that charges the fee.
 */
export function checkTxArguments(messages: readonly Any[], types: TypeRegistry, prefix: string): void {
  for (const any of messages) {
    const { desc, message } = types.unpack(any);
    checkMessage(desc, message, types, prefix);
  }
}

function checkMessage(desc: DescMessage, msg: Message, types: TypeRegistry, prefix: string): void {
  if (desc.typeName === COIN) {
    checkCoin(msg as unknown as { denom: string; amount: string });
    return;
  }
  for (const field of desc.fields) {
    const value = (msg as unknown as Record<string, unknown>)[field.localName];
    if (field.fieldKind === "scalar") checkAddressField(field, value, prefix);
    else if (field.fieldKind === "list" && field.listKind === "scalar")
      for (const v of value as unknown[]) checkAddressField(field, v, prefix);
    else if (field.fieldKind === "list" && field.listKind === "message")
      for (const v of value as Message[]) checkNested(field.message, v, types, prefix);
    else if (field.fieldKind === "message" && value !== undefined)
      checkNested(field.message, value as Message, types, prefix);
  }
}

/** A nested message, or the message inside an Any (a proposal's messages) when the registry knows its type. */
function checkNested(desc: DescMessage, msg: Message, types: TypeRegistry, prefix: string): void {
  if (desc.typeName !== "google.protobuf.Any") {
    checkMessage(desc, msg, types, prefix);
    return;
  }
  let inner: ReturnType<TypeRegistry["unpack"]>;
  try {
    inner = types.unpack(msg as unknown as Any);
  } catch {
    return;
  }
  checkMessage(inner.desc, inner.message, types, prefix);
}

function checkAddressField(field: DescField, value: unknown, prefix: string): void {
  const kind = getOption(field, scalar);
  if (kind !== ACCOUNT_ADDRESS && kind !== VALIDATOR_ADDRESS) return;
  const text = value as string;
  // A deprecated address field (MsgCreateValidator's delegator_address) is left empty by current clients.
  if (text === "" && field.deprecated) return;
  checkAddress(text, kind === VALIDATOR_ADDRESS ? `${prefix}valoper` : prefix);
}

/** The SDK's messages: `empty address string is not allowed`, `invalid address: decoding bech32 failed: ...`. */
export function checkAddress(text: string, prefix: string): void {
  if (text.trim() === "") throw new CliError("empty address string is not allowed");
  let bytes: Uint8Array;
  try {
    bytes = decodeBech32(text, prefix);
  } catch (e) {
    throw new CliError(`invalid address: ${(e as Error).message}`);
  }
  if (bytes.length > 255)
    throw new CliError(`invalid address: address max length is 255, got ${bytes.length}`);
}

function checkCoin(coin: { denom: string; amount: string }): void {
  try {
    validateDenom(coin.denom);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  if (!/^\d+$/.test(coin.amount))
    throw new CliError(`invalid coin amount ${JSON.stringify(coin.amount)} for ${coin.denom}`);
}
