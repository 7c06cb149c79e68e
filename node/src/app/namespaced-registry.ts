import type { DescMessage, Registry } from "@bufbuild/protobuf";
import { toSdkName } from "./namespace.js";

/**
 * A registry that also resolves `cosmos.` message names, so JSON of an answer in the cosmos namespace (an Any
 * holding `/cosmos.auth.v1beta1.BaseAccount`) prints with the type URL it carries. A cosmos name resolves to
 * an alias of our `sdk.` descriptor that differs only in its type name, which protobuf-es checks on unpacking.
 */
export function namespacedRegistry(inner: Registry): Registry {
  const aliases = new Map<string, DescMessage>();
  const message = (name: string): DescMessage | undefined => {
    const { name: sdkName, namespace } = toSdkName(name);
    const desc = inner.getMessage(sdkName);
    if (!desc || namespace === "sdk") return desc;
    let alias = aliases.get(name);
    if (!alias) {
      alias = Object.create(desc, { typeName: { value: name } }) as DescMessage;
      aliases.set(name, alias);
    }
    return alias;
  };
  return {
    kind: "registry",
    get: (name) => message(name) ?? inner.get(toSdkName(name).name),
    getMessage: message,
    getEnum: (name) => inner.getEnum(toSdkName(name).name),
    getExtension: (name) => inner.getExtension(toSdkName(name).name),
    getExtensionFor: (extendee, no) => inner.getExtensionFor(extendee, no),
    getService: (name) => inner.getService(toSdkName(name).name),
    [Symbol.iterator]: () => inner[Symbol.iterator](),
  };
}
