import { existsSync } from "node:fs";
import { type ConfigOf, defineTable, renderToml, setting, tableDefaults } from "@chaind/core/config-table";
import { readTomlConfig } from "./toml-file.js";
import { tomlString } from "./toml-setting-types.js";

/** `config/client.toml`: defaults for CLI commands that talk to a node, with the Cosmos SDK's names. */
export const CLIENT_TOML = defineTable({
  name: "client.toml",
  entries: {
    chainId: setting({ name: "chain-id", type: tomlString, default: "", doc: "The network chain ID." }),
    keyringBackend: setting({
      name: "keyring-backend",
      type: tomlString,
      // Keys are encrypted unless a home says otherwise (`chaind testnet` homes use "test").
      default: "file",
      doc: "The keyring's backend: file (keys encrypted with a passphrase) or test (keys unencrypted, for testing only).",
    }),
    output: setting({
      name: "output",
      type: tomlString,
      default: "text",
      doc: "CLI output format (text|json).",
    }),
    node: setting({
      name: "node",
      type: tomlString,
      default: "tcp://localhost:26657",
      doc: "<host>:<port> of the node's CometBFT-compatible RPC.",
    }),
    broadcastMode: setting({
      name: "broadcast-mode",
      type: tomlString,
      default: "sync",
      doc: "Transaction broadcasting mode (sync|async).",
    }),
  },
});

export type ClientConfig = ConfigOf<typeof CLIENT_TOML.entries>;

export function defaultClientConfig(chainId: string): ClientConfig {
  return { ...tableDefaults(CLIENT_TOML), chainId };
}

/** A missing client.toml is not an error: commands then use the defaults. */
export function readClientConfig(path: string): ClientConfig {
  if (!existsSync(path)) return tableDefaults(CLIENT_TOML);
  return readTomlConfig(CLIENT_TOML, path);
}

export function renderClientToml(c: ClientConfig): string {
  return renderToml(CLIENT_TOML, c, ["chaind client configuration (client.toml)"]);
}
