import { clone, type DescFile, type Registry, toBinary } from "@bufbuild/protobuf";
import {
  type DescriptorProto,
  type FileDescriptorProto,
  FileDescriptorProtoSchema,
} from "@bufbuild/protobuf/wkt";

/**
 * The descriptors server reflection hands out: every file the served services and registered types come
 * from, each `sdk.` file also as its `cosmos.` twin (package, file name, imports and type references
 * renamed), so a client can call either namespace. Indexed by file name and by fully-qualified symbol.
 */
export class DescriptorIndex {
  private readonly files = new Map<string, FileDescriptorProto>();
  private readonly symbols = new Map<string, string>();

  constructor(roots: readonly DescFile[]) {
    const seen = new Set<DescFile>();
    const visit = (f: DescFile) => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const d of f.dependencies) visit(d);
      this.add(f.proto);
      if (f.proto.package.startsWith("sdk.") && f.proto.name.startsWith("sdk/"))
        this.add(cosmosTwin(f.proto));
    };
    for (const f of roots) visit(f);
  }

  /** The files behind a set of services and every type of a registry. */
  static of(files: Iterable<DescFile>, registry: Registry): DescriptorIndex {
    const roots = new Set<DescFile>(files);
    for (const t of registry) roots.add(t.file);
    return new DescriptorIndex([...roots]);
  }

  fileByName(name: string): FileDescriptorProto | undefined {
    return this.files.get(name);
  }

  fileOfSymbol(symbol: string): FileDescriptorProto | undefined {
    const name = this.symbols.get(symbol.replace(/^\./, ""));
    return name === undefined ? undefined : this.files.get(name);
  }

  /** A file and everything it imports, serialized, the file first. */
  withDependencies(file: FileDescriptorProto): Uint8Array[] {
    const out: Uint8Array[] = [];
    const seen = new Set<string>();
    const walk = (f: FileDescriptorProto) => {
      if (seen.has(f.name)) return;
      seen.add(f.name);
      out.push(toBinary(FileDescriptorProtoSchema, f));
      for (const dep of f.dependency) {
        const d = this.files.get(dep);
        if (d) walk(d);
      }
    };
    walk(file);
    return out;
  }

  private add(f: FileDescriptorProto): void {
    this.files.set(f.name, f);
    const pkg = f.package ? `${f.package}.` : "";
    const addMessages = (prefix: string, msgs: DescriptorProto[]) => {
      for (const m of msgs) {
        const name = prefix + m.name;
        this.symbols.set(name, f.name);
        for (const e of m.enumType) this.symbols.set(`${name}.${e.name}`, f.name);
        addMessages(`${name}.`, m.nestedType);
      }
    };
    addMessages(pkg, f.messageType);
    for (const e of f.enumType) this.symbols.set(pkg + e.name, f.name);
    for (const s of f.service) {
      this.symbols.set(pkg + s.name, f.name);
      for (const m of s.method) this.symbols.set(`${pkg}${s.name}.${m.name}`, f.name);
    }
    for (const x of f.extension) this.symbols.set(pkg + x.name, f.name);
  }
}

const toCosmosFile = (n: string) => (n.startsWith("sdk/") ? `cosmos/${n.slice(4)}` : n);

/** Renames `.sdk.` references in place; descriptor fields have presence, so unset ones stay unset. */
function renameRefs<K extends string>(obj: Record<K, string>, keys: readonly K[]): void {
  for (const k of keys) if (obj[k].startsWith(".sdk.")) obj[k] = `.cosmos.${obj[k].slice(5)}`;
}

function cosmosTwin(proto: FileDescriptorProto): FileDescriptorProto {
  const f = clone(FileDescriptorProtoSchema, proto);
  f.name = toCosmosFile(f.name);
  f.package = `cosmos.${f.package.slice(4)}`;
  f.dependency = f.dependency.map(toCosmosFile);
  const renameMessages = (msgs: DescriptorProto[]) => {
    for (const m of msgs) {
      for (const field of [...m.field, ...m.extension]) renameRefs(field, ["typeName", "extendee"]);
      renameMessages(m.nestedType);
    }
  };
  renameMessages(f.messageType);
  for (const x of f.extension) renameRefs(x, ["typeName", "extendee"]);
  for (const s of f.service) for (const m of s.method) renameRefs(m, ["inputType", "outputType"]);
  return f;
}
