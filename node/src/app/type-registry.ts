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
import type { AminoType } from "./amino-types.js";
import { type Namespace, toNamespace, typeUrlToSdk } from "./namespace.js";

/** Resolves Any type URLs (under `/sdk.` or `/cosmos.`) to message descriptors, for packing and JSON. */
export class TypeRegistry {
  readonly registry: MutableRegistry;
  private readonly aminoTypes = new Map<string, AminoType>();

  constructor(files: readonly DescFile[]) {
    this.registry = createMutableRegistry(...files);
  }

  /** Modules add their files as the app is assembled. */
  add(files: readonly DescFile[]): void {
    for (const f of files) for (const t of nestedTypes(f)) this.registry.add(t);
  }

  /** Amino JSON names and field rules (SIGN_MODE_LEGACY_AMINO_JSON), one entry per type. */
  addAmino(entries: readonly AminoType[]): void {
    for (const e of entries) {
      if (this.aminoTypes.has(e.typeName)) throw new Error(`amino JSON of ${e.typeName} is registered twice`);
      // Two types under one amino name would sign alike: a signature for one would pass for the other.
      const twin = e.aminoName && [...this.aminoTypes.values()].find((t) => t.aminoName === e.aminoName);
      if (twin) throw new Error(`amino name ${e.aminoName} is used by ${twin.typeName} and ${e.typeName}`);
      this.aminoTypes.set(e.typeName, e);
    }
  }

  aminoType(typeName: string): AminoType | undefined {
    return this.aminoTypes.get(typeName);
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
