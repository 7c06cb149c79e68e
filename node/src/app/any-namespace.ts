import { type DescMessage, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { Any } from "@bufbuild/protobuf/wkt";
import { typeReach } from "./message-type-reach.js";
import { type Namespace, toNamespace, typeUrlToSdk } from "./namespace.js";
import type { TypeRegistry } from "./type-registry.js";

type Fields = Record<string, unknown>;

/**
 * Rewrites every Any inside a message (packed ones included) to `/<name>` in a namespace: the one a client
 * asked in, so a `cosmos.` request gets `/cosmos.auth.v1beta1.BaseAccount` holding a
 * `/cosmos.crypto.secp256k1.PubKey`; or `sdk`, to undo protojson's `type.googleapis.com/` prefix after
 * parsing JSON. Changes the message in place.
 */
export function rewriteAnyTypeUrls(desc: DescMessage, msg: object, ns: Namespace, types: TypeRegistry): void {
  visit(desc, msg as Fields, ns, types);
}

/** Whether a message of this type can hold an Any at any depth (most answers cannot: nothing to visit). */
const mayHoldAny = typeReach((d) => d.typeName === "google.protobuf.Any");

function visit(desc: DescMessage, msg: Fields, ns: Namespace, types: TypeRegistry): void {
  if (desc.typeName === "google.protobuf.Any") {
    rewriteAny(msg as unknown as Any, ns, types);
    return;
  }
  if (!mayHoldAny(desc)) return;
  for (const f of desc.fields) {
    let v: unknown;
    if (f.oneof) {
      const o = msg[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
      if (o?.case !== f.localName) continue;
      v = o.value;
    } else {
      v = msg[f.localName];
    }
    if (v === undefined || v === null) continue;
    if (f.fieldKind === "message") visit(f.message, v as Fields, ns, types);
    else if (f.fieldKind === "list" && f.listKind === "message")
      for (const item of v as Fields[]) visit(f.message, item, ns, types);
    else if (f.fieldKind === "map" && f.mapKind === "message")
      for (const item of Object.values(v as Record<string, Fields>)) visit(f.message, item, ns, types);
  }
}

function rewriteAny(any: Any, ns: Namespace, types: TypeRegistry): void {
  if (!any.typeUrl) return;
  const { name } = typeUrlToSdk(any.typeUrl);
  const desc = types.registry.getMessage(name);
  any.typeUrl = `/${toNamespace(name, ns)}`;
  if (!desc) return;
  const inner = fromBinary(desc, any.value);
  visit(desc, inner as unknown as Fields, ns, types);
  any.value = toBinary(desc, inner);
}
