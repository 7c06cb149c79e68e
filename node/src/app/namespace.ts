/**
 * Our proto packages are `sdk.*`; Cosmos tooling speaks `cosmos.*`. Both names are accepted everywhere and
 * an answer goes back in the namespace its request used.
 */
export type Namespace = "sdk" | "cosmos";

const COSMOS = "cosmos.";
const SDK = "sdk.";

/** `cosmos.bank.v1beta1.MsgSend` -> `sdk.bank.v1beta1.MsgSend`; other names pass unchanged. */
export function toSdkName(name: string): { name: string; namespace: Namespace } {
  if (name.startsWith(COSMOS)) return { name: SDK + name.slice(COSMOS.length), namespace: "cosmos" };
  return { name, namespace: "sdk" };
}

export function toNamespace(sdkName: string, ns: Namespace): string {
  return ns === "cosmos" && sdkName.startsWith(SDK) ? COSMOS + sdkName.slice(SDK.length) : sdkName;
}

/** The type name is whatever follows the last "/" ("/x.Y" from Cosmos, "type.googleapis.com/x.Y" from protojson). */
export function typeUrlToSdk(typeUrl: string): { name: string; namespace: Namespace } {
  return toSdkName(typeUrl.slice(typeUrl.lastIndexOf("/") + 1));
}
