import type { Registry } from "@bufbuild/protobuf";
import {
  create,
  createRegistry,
  type DescMessage,
  type DescMethod,
  fromBinary,
  type Message,
  type MessageInitShape,
  type MessageShape,
  toBinary,
} from "@bufbuild/protobuf";
import { NodeCallError, NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { namespacedRegistry } from "../app/namespaced-registry.js";
import { gatewayJson } from "../server/rest/gateway-json.js";
import { CliError } from "./cli-error.js";
import { clientDefaults, type QueryArgs } from "./query-options.js";

export function nodeClient(args: QueryArgs): NodeRpcClient {
  return new NodeRpcClient(args.node ?? clientDefaults(args.home).node);
}

/** Runs one gRPC-style query over the node's RPC; failures become one-line CLI errors. */
export async function runQuery<I extends DescMessage, O extends DescMessage>(
  args: QueryArgs,
  method: DescMethod & { input: I; output: O },
  req: MessageInitShape<I>,
): Promise<MessageShape<O>> {
  const path = `/${method.parent.typeName}/${method.name}`;
  try {
    const r = await nodeClient(args).query(
      path,
      toBinary(method.input, create(method.input, req)),
      args.height,
    );
    return fromBinary(method.output, r.value);
  } catch (e) {
    if (e instanceof NodeCallError) throw new CliError(e.message);
    throw e;
  }
}

/**
 * Prints a message as Cosmos does: its JSON codec's output for `-o json` (the gateway's: unset messages as
 * null, a non-nullable time as the zero time), that as YAML for text.
 */
export function printMessage(
  args: { output?: string; home: string },
  schema: DescMessage,
  msg: Message,
  registry?: Registry,
): void {
  // Anys a client such as CosmJS wrote carry `/cosmos.` type URLs; they print as they were sent.
  printJson(args, gatewayJson(schema, msg, namespacedRegistry(registry ?? createRegistry())));
}

export function printJson(args: { output?: string; home: string }, json: unknown): void {
  const output = args.output ?? clientDefaults(args.home).output;
  process.stdout.write(output === "json" ? `${JSON.stringify(json)}\n` : `${toText(json, "")}\n`);
}

/** Text output as Cosmos prints it: its JSON turned into YAML, keys sorted, scalars quoted where YAML needs. */
function toText(v: unknown, indent: string): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return v.map((item) => `\n${indent}- ${toText(item, `${indent}  `).replace(/^\n\s*/, "")}`).join("");
  }
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    if (entries.length === 0) return "{}";
    return entries
      .map(([k, val]) => {
        const rendered = toText(val, `${indent}  `);
        return `\n${indent}${yamlString(k)}:${rendered.startsWith("\n") ? "" : " "}${rendered}`;
      })
      .join("")
      .replace(/^\n/, indent === "" ? "" : "\n");
  }
  return typeof v === "string" ? yamlString(v) : String(v);
}

/**
 * A string as Go's YAML encoder writes it: in double quotes when YAML would read it as something else (an
 * int64's "100", a bool, null, a time) or it holds control characters, in single quotes when its first
 * character or a ": " would break the syntax ('@type'), plain otherwise.
 */
function yamlString(s: string): string {
  const otherType =
    s === "" ||
    /^[-+]?(\.?\d[\d_]*(\.\d*)?([eE][-+]?\d+)?|0x[0-9a-fA-F_]+|0b[01_]+|\.(inf|Inf|INF)|\.(nan|NaN|NAN))$/.test(
      s,
    ) ||
    /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF|null|Null|NULL|~)$/.test(
      s,
    ) ||
    /^\d{4}-\d\d?-\d\d?([Tt ]|$)/.test(s);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this looks for
  if (otherType || /[\u0000-\u001f\u007f]/.test(s)) return JSON.stringify(s);
  if (/^[\s\-?:,[\]{}#&*!|>'"%@`]|\s$|: |:$| #/.test(s)) return `'${s.replaceAll("'", "''")}'`;
  return s;
}
