import { existsSync } from "node:fs";
import type { HomeArgs } from "../app/home-args.js";
import { readClientConfig } from "../config/client-config.js";
import { HomeLayout } from "../config/home-layout.js";

/** Flags of every command that talks to a node. */
export const queryOptions = {
  node: {
    type: "string",
    describe: "<host>:<port> of the node's RPC (default: client.toml, tcp://localhost:26657)",
  },
  height: { type: "number", default: 0, describe: "query the state at this height (0 = latest)" },
  output: {
    alias: "o",
    type: "string",
    choices: ["text", "json"],
    describe: "output format (default: client.toml)",
  },
} as const;

export interface QueryArgs extends HomeArgs {
  node?: string;
  height: number;
  output?: "text" | "json";
}

/** client.toml of the home, when there is one: the defaults of --node, --chain-id, --output. */
export function clientDefaults(home: string) {
  const path = new HomeLayout(home).clientToml;
  return readClientConfig(existsSync(path) ? path : `${path}.missing`);
}
