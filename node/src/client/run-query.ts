import type { Registry } from "@bufbuild/protobuf";
import {
  create,
  type DescMessage,
  type DescMethod,
  fromBinary,
  type Message,
  type MessageInitShape,
  type MessageShape,
  toBinary,
  toJson,
} from "@bufbuild/protobuf";
import { NodeCallError, NodeRpcClient } from "@chaind/core/comet-rpc-client";
import { PROTO_JSON_WRITE } from "../app/proto-json.js";
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

/** Prints a message as Cosmos does: protojson for `-o json`, an indented key: value form for text. */
export function printMessage(
  args: { output?: string; home: string },
  schema: DescMessage,
  msg: Message,
  registry?: Registry,
): void {
  const json = toJson(schema, msg, { ...PROTO_JSON_WRITE, registry });
  printJson(args, json);
}

export function printJson(args: { output?: string; home: string }, json: unknown): void {
  const output = args.output ?? clientDefaults(args.home).output;
  process.stdout.write(output === "json" ? `${JSON.stringify(json)}\n` : `${toText(json, "")}\n`);
}

function toText(v: unknown, indent: string): string {
  if (v === null || v === undefined) return "null";
  if (Array.isArray(v)) {
    if (v.length === 0) return "[]";
    return v.map((item) => `\n${indent}- ${toText(item, `${indent}  `).replace(/^\n\s*/, "")}`).join("");
  }
  if (typeof v === "object") {
    const entries = Object.entries(v as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    return entries
      .map(([k, val]) => {
        const rendered = toText(val, `${indent}  `);
        return `\n${indent}${k}:${rendered.startsWith("\n") ? "" : " "}${rendered}`;
      })
      .join("")
      .replace(/^\n/, indent === "" ? "" : "\n");
  }
  return typeof v === "string" && (v === "" || /[:#\n]/.test(v)) ? JSON.stringify(v) : String(v);
}
