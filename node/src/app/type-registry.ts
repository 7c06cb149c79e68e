import {
  create,
  createMutableRegistry,
  type DescFile,
  type DescMessage,
  fromBinary,
  type Message,
  type MutableRegistry,
  toBinary,
} from "@bufbuild/protobuf";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import { type Any, AnySchema } from "@bufbuild/protobuf/wkt";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import { type Namespace, toNamespace, typeUrlToSdk } from "./namespace.js";

/** Resolves Any type URLs (under `/sdk.` or `/cosmos.`) to message descriptors, for packing and JSON. */
export class TypeRegistry {
  readonly registry: MutableRegistry;

  constructor(files: readonly DescFile[]) {
    this.registry = createMutableRegistry(...files);
  }

  /** Modules add their files as the app is assembled. */
  add(files: readonly DescFile[]): void {
    for (const f of files) for (const t of nestedTypes(f)) this.registry.add(t);
  }

  resolve(typeUrl: string): { desc: DescMessage; namespace: Namespace } {
    const { name, namespace } = typeUrlToSdk(typeUrl);
    const desc = this.registry.getMessage(name);
    if (!desc)
      throw ChainError.wrap(SdkErrors.UnpackAny, `no concrete type registered for type URL ${typeUrl}`);
    return { desc, namespace };
  }

  unpack<T extends Message>(any: Any): { message: T; desc: DescMessage; namespace: Namespace } {
    const { desc, namespace } = this.resolve(any.typeUrl);
    try {
      return { message: fromBinary(desc, any.value) as T, desc, namespace };
    } catch (e) {
      throw ChainError.wrap(SdkErrors.UnpackAny, `cannot decode ${any.typeUrl}: ${(e as Error).message}`);
    }
  }

  pack(desc: DescMessage, message: Message, ns: Namespace = "sdk"): Any {
    return create(AnySchema, {
      typeUrl: `/${toNamespace(desc.typeName, ns)}`,
      value: toBinary(desc, message),
    });
  }
}
