import type { Registry } from "@bufbuild/protobuf";
import { toSdkName } from "../../app/namespace.js";

/**
 * A registry that also resolves `cosmos.` names to our `sdk.` types, so JSON of an answer in the cosmos
 * namespace (Any with `/cosmos.auth.v1beta1.BaseAccount`) prints, keeping the type URL it carries.
 */
export function namespacedRegistry(inner: Registry): Registry {
  const sdk = (name: string) => toSdkName(name).name;
  return {
    kind: "registry",
    get: (name) => inner.get(sdk(name)),
    getFile: (name) => inner.getFile(name),
    getMessage: (name) => inner.getMessage(sdk(name)),
    getEnum: (name) => inner.getEnum(sdk(name)),
    getExtension: (name) => inner.getExtension(sdk(name)),
    getExtensionFor: (extendee, no) => inner.getExtensionFor(extendee, no),
    getService: (name) => inner.getService(sdk(name)),
    [Symbol.iterator]: () => inner[Symbol.iterator](),
  } as Registry;
}
