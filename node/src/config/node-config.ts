import {
  type ConfigOf,
  defineTable,
  renderToml,
  section,
  setting,
  tableDefaults,
} from "@chaind/core/config-table";
import { readTomlConfig } from "./toml-file.js";
import { tomlBool, tomlChoice, tomlGoDuration, tomlString, tomlWholeNumber } from "./toml-setting-types.js";

const whole = tomlWholeNumber({ min: 0 });
const positive = tomlWholeNumber({ min: 1 });

/**
 * `config/config.toml`: the node's consensus, RPC and mempool settings, with CometBFT's names and defaults.
 * Timeouts are Go duration strings, as CometBFT writes them; the parsed values are milliseconds.
 */
export const CONFIG_TOML = defineTable({
  name: "config.toml",
  entries: {
    moniker: setting({
      name: "moniker",
      type: tomlString,
      default: "node",
      doc: "A custom human-readable name for this node.",
    }),
    consensusEngine: setting({
      name: "consensus_engine",
      type: tomlChoice(["embedded", "cometbft"]),
      default: "embedded",
      doc: "Who makes the blocks (not a CometBFT key): chaind's embedded single-validator engine, or CometBFT driving chaind over ABCI (chaind start runs cometbft beside it).",
    }),
    proxyApp: setting({
      name: "proxy_app",
      type: tomlString,
      default: "tcp://127.0.0.1:26658",
      doc: "Where chaind serves ABCI and CometBFT connects to it (tcp://host:port or unix:///path).",
    }),
    rpc: section("rpc", "RPC Server Configuration Options", {
      laddr: setting({
        name: "laddr",
        type: tomlString,
        default: "tcp://127.0.0.1:26657",
        doc: "TCP address for the CometBFT-compatible JSON-RPC server (empty = no RPC server).",
      }),
      maxBodyBytes: setting({
        name: "max_body_bytes",
        type: positive,
        default: 1_000_000,
        unit: "bytes",
        doc: "The largest request body.",
      }),
      readTimeoutMs: setting({
        name: "read_timeout",
        type: tomlGoDuration,
        default: 10_000,
        doc: "The longest a request may take to arrive.",
      }),
      timeoutBroadcastTxCommitMs: setting({
        name: "timeout_broadcast_tx_commit",
        type: tomlGoDuration,
        default: 10_000,
        doc: "How long broadcast_tx_commit waits for its tx to be committed.",
      }),
      maxOpenConnections: setting({
        name: "max_open_connections",
        type: whole,
        default: 900,
        doc: "Connections served at once (0 = no limit); more wait until one closes.",
      }),
      maxRequestBatchSize: setting({
        name: "max_request_batch_size",
        type: whole,
        default: 10,
        doc: "Requests one JSON-RPC batch may hold (0 = no limit); a larger batch gets one error.",
      }),
      maxResponseBytes: setting({
        name: "max_response_bytes",
        type: positive,
        // Room for the largest single answers CometBFT's limits allow (a block at the default max_bytes of
        // 21 MiB is about 29 MB of base64, a 16 MiB genesis chunk about 22 MB), not for a batch of them.
        default: 64 * 1024 * 1024,
        unit: "bytes",
        doc: "The largest answer, single or batch (not a CometBFT key); a larger one is replaced by a JSON-RPC error.",
      }),
      maxSubscriptionClients: setting({
        name: "max_subscription_clients",
        type: whole,
        default: 100,
        doc: "WebSocket connections (/websocket) that may hold subscriptions at once; one more subscribe is refused.",
      }),
      maxSubscriptionsPerClient: setting({
        name: "max_subscriptions_per_client",
        type: whole,
        default: 5,
        doc: "Queries one WebSocket connection may subscribe to at once.",
      }),
      subscriptionBufferSize: setting({
        name: "experimental_subscription_buffer_size",
        type: tomlWholeNumber({ min: 100 }),
        default: 200,
        doc: "Events one subscription may have waiting for a client that reads too slowly; past it the subscription is cancelled (at least 100).",
      }),
      webSocketWriteBufferSize: setting({
        name: "experimental_websocket_write_buffer_size",
        type: positive,
        default: 200,
        doc: "Answers and events one WebSocket connection may have unsent before its subscriptions' buffers fill (at least experimental_subscription_buffer_size).",
      }),
      closeOnSlowClient: setting({
        name: "experimental_close_on_slow_client",
        type: tomlBool,
        default: false,
        doc: "When true, a WebSocket client whose subscription buffer overflows is disconnected instead of only losing that subscription.",
      }),
    }),
    p2p: section("p2p", "P2P Configuration Options", {
      laddr: setting({
        name: "laddr",
        type: tomlString,
        default: "tcp://127.0.0.1:26656",
        doc: "Where CometBFT listens for peers (loopback unless set otherwise; CometBFT's default is every interface).",
      }),
      persistentPeers: setting({
        name: "persistent_peers",
        type: tomlString,
        default: "",
        doc: "Comma-separated id@host:port of the peers CometBFT keeps connected to.",
      }),
      addrBookStrict: setting({
        name: "addr_book_strict",
        type: tomlBool,
        default: true,
        doc: "Whether CometBFT refuses peers on non-routable addresses (false for networks on one machine).",
      }),
      allowDuplicateIp: setting({
        name: "allow_duplicate_ip",
        type: tomlBool,
        default: false,
        doc: "Whether CometBFT takes several peers on one IP address (true for networks on one machine).",
      }),
    }),
    consensus: section("consensus", "Consensus Configuration Options", {
      timeoutCommitMs: setting({
        name: "timeout_commit",
        type: tomlGoDuration,
        default: 5000,
        doc: "Time between committing a block and starting the next one: the block time of the embedded producer.",
      }),
      createEmptyBlocks: setting({
        name: "create_empty_blocks",
        type: tomlBool,
        default: true,
        doc: "When false, a block is made only when the mempool holds transactions.",
      }),
      maxBlockTxs: setting({
        name: "max_block_txs",
        type: positive,
        default: 5000,
        doc: "At most this many transactions go into one block (not a CometBFT key).",
      }),
    }),
    mempool: section("mempool", "Mempool Configuration Options", {
      size: setting({
        name: "size",
        type: positive,
        default: 5000,
        doc: "The most transactions the mempool holds.",
      }),
      maxTxsBytes: setting({
        name: "max_txs_bytes",
        type: positive,
        default: 1_073_741_824,
        unit: "bytes",
        doc: "The most the transactions in the mempool may hold together.",
      }),
      maxTxBytes: setting({
        name: "max_tx_bytes",
        type: positive,
        default: 1_048_576,
        unit: "bytes",
        doc: "The largest transaction the mempool (and a simulation) accepts.",
      }),
    }),
  },
  check: (c) =>
    // CometBFT's rule: a write buffer smaller than a subscription's buffer drops clients needlessly.
    c.rpc.webSocketWriteBufferSize < c.rpc.subscriptionBufferSize
      ? [
          {
            key: "rpc.experimental_websocket_write_buffer_size",
            expected: `at least experimental_subscription_buffer_size (${c.rpc.subscriptionBufferSize})`,
            got: c.rpc.webSocketWriteBufferSize,
          },
        ]
      : [],
});

export type NodeConfig = ConfigOf<typeof CONFIG_TOML.entries>;

export function defaultNodeConfig(moniker: string): NodeConfig {
  return { ...tableDefaults(CONFIG_TOML), moniker };
}

export function readNodeConfig(path: string): NodeConfig {
  return readTomlConfig(CONFIG_TOML, path);
}

export function renderConfigToml(c: NodeConfig): string {
  return renderToml(CONFIG_TOML, c, ["chaind node configuration (config.toml), CometBFT key names"]);
}
