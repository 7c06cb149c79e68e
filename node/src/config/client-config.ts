import { existsSync } from "node:fs";
import { readTomlFile, TomlReader } from "./toml-file.js";

/** `config/client.toml`: defaults for CLI commands that talk to a node. */
export interface ClientConfig {
  chainId: string;
  keyringBackend: string;
  output: string;
  node: string;
  broadcastMode: string;
}

/** Keys are encrypted unless a home says otherwise (`chaind testnet` homes use "test"). */
export function defaultClientConfig(chainId: string): ClientConfig {
  return {
    chainId,
    keyringBackend: "file",
    output: "text",
    node: "tcp://localhost:26657",
    broadcastMode: "sync",
  };
}

/** A missing client.toml is not an error: commands then use the defaults. */
export function readClientConfig(path: string): ClientConfig {
  const d = defaultClientConfig("");
  if (!existsSync(path)) return d;
  const r = new TomlReader(readTomlFile(path), path);
  return {
    chainId: r.string("chain-id", d.chainId),
    keyringBackend: r.string("keyring-backend", d.keyringBackend),
    output: r.string("output", d.output),
    node: r.string("node", d.node),
    broadcastMode: r.string("broadcast-mode", d.broadcastMode),
  };
}

export function renderClientToml(c: ClientConfig): string {
  return `# chaind client configuration (client.toml)

# The network chain ID
chain-id = ${JSON.stringify(c.chainId)}
# The keyring's backend: file (keys encrypted with a passphrase) or test (keys unencrypted, for testing only)
keyring-backend = ${JSON.stringify(c.keyringBackend)}
# CLI output format (text|json)
output = ${JSON.stringify(c.output)}
# <host>:<port> of the node's CometBFT-compatible RPC
node = ${JSON.stringify(c.node)}
# Transaction broadcasting mode (sync|async)
broadcast-mode = ${JSON.stringify(c.broadcastMode)}
`;
}
