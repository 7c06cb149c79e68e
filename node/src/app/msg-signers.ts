import { type DescField, type DescMessage, getOption, type Message } from "@bufbuild/protobuf";
import { signer } from "@chaind/proto/sdk/msg/v1/msg_pb";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { AddressCodec } from "./address-codec.js";

/**
 * The signer addresses of a message, read from its `sdk.msg.v1.signer` option: a string field holds an
 * address; a message field (or list of them) defers to that message's own signer option.
 */
export function msgSigners(desc: DescMessage, msg: Message, addresses: AddressCodec): string[] {
  const out: string[] = [];
  for (const field of signerFields(desc)) {
    const name = field.name;
    const value = (msg as unknown as Record<string, unknown>)[field.localName];
    if (field.fieldKind === "scalar") {
      out.push(signerAccount(value as string, name, addresses));
    } else if (field.message) {
      const items = Array.isArray(value) ? value : value ? [value] : [];
      for (const item of items) out.push(...msgSigners(field.message, item as Message, addresses));
    }
  }
  return out;
}

// Read once per message type: option lookups cost more than the rest of a send's signer check.
const fieldsByType = new WeakMap<DescMessage, DescField[]>();

function signerFields(desc: DescMessage): DescField[] {
  let fields = fieldsByType.get(desc);
  if (!fields) {
    const names = getOption(desc, signer);
    if (names.length === 0)
      throw ChainError.wrap(SdkErrors.InvalidType, `message ${desc.typeName} declares no signer`);
    fields = names.map((name) => {
      const field = desc.fields.find((f) => f.name === name);
      if (!field)
        throw ChainError.wrap(SdkErrors.Logic, `signer field ${name} not found in ${desc.typeName}`);
      return field;
    });
    fieldsByType.set(desc, fields);
  }
  return fields;
}

/** A signer field may hold an operator (`<prefix>valoper…`) address; the account that signs is the same bytes. */
function signerAccount(value: string, field: string, addresses: AddressCodec): string {
  const valoper = `${addresses.prefix}valoper1`;
  if (value.startsWith(valoper))
    return addresses.toString(new AddressCodec(valoper.slice(0, -1)).fromString(value, field));
  addresses.fromString(value, field);
  return value;
}
