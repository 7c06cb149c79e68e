import { formatGoDuration, parseGoDuration } from "@chaind/core/go-duration";
import { readTomlFile, TomlReader } from "./toml-file.js";

/** `config/config.toml`: the node's consensus, RPC and mempool settings, CometBFT names and defaults. */
export interface NodeConfig {
  moniker: string;
  rpc: {
    laddr: string;
    maxBodyBytes: number;
    readTimeoutMs: number;
    timeoutBroadcastTxCommitMs: number;
    /** 0: no limit. */
    maxOpenConnections: number;
    /** Requests one JSON-RPC batch may hold (CometBFT 1.x); 0: no limit. */
    maxRequestBatchSize: number;
    /**
     * Ours, not CometBFT's: the largest answer (single or batch); a larger one becomes a JSON-RPC error. The
     * default, 64 MiB, has room for the largest single answers CometBFT's limits allow (a block at the default
     * max_bytes of 21 MiB is about 29 MB of base64, a 16 MiB genesis chunk about 22 MB), not for a batch of them.
     */
    maxResponseBytes: number;
  };
  consensus: { timeoutCommitMs: number; createEmptyBlocks: boolean; maxBlockTxs: number };
  mempool: { size: number; maxTxsBytes: number; maxTxBytes: number };
}

export function defaultNodeConfig(moniker: string): NodeConfig {
  return {
    moniker,
    rpc: {
      laddr: "tcp://127.0.0.1:26657",
      maxBodyBytes: 1_000_000,
      readTimeoutMs: 10_000,
      timeoutBroadcastTxCommitMs: 10_000,
      maxOpenConnections: 900,
      maxRequestBatchSize: 10,
      maxResponseBytes: 64 * 1024 * 1024,
    },
    consensus: { timeoutCommitMs: 5000, createEmptyBlocks: true, maxBlockTxs: 5000 },
    mempool: { size: 5000, maxTxsBytes: 1_073_741_824, maxTxBytes: 1_048_576 },
  };
}

function duration(r: TomlReader, key: string, defMs: number, file: string): number {
  const text = r.string(key, formatGoDuration(defMs));
  try {
    return parseGoDuration(text);
  } catch (e) {
    throw new Error(`${file}: ${key}: ${(e as Error).message}`);
  }
}

export function readNodeConfig(path: string): NodeConfig {
  const r = new TomlReader(readTomlFile(path), path);
  const d = defaultNodeConfig("node");
  return {
    moniker: r.string("moniker", d.moniker),
    rpc: {
      laddr: r.string("rpc.laddr", d.rpc.laddr),
      maxBodyBytes: r.int("rpc.max_body_bytes", d.rpc.maxBodyBytes, 1),
      readTimeoutMs: duration(r, "rpc.read_timeout", d.rpc.readTimeoutMs, path),
      timeoutBroadcastTxCommitMs: duration(
        r,
        "rpc.timeout_broadcast_tx_commit",
        d.rpc.timeoutBroadcastTxCommitMs,
        path,
      ),
      maxOpenConnections: r.int("rpc.max_open_connections", d.rpc.maxOpenConnections, 0),
      maxRequestBatchSize: r.int("rpc.max_request_batch_size", d.rpc.maxRequestBatchSize, 0),
      maxResponseBytes: r.int("rpc.max_response_bytes", d.rpc.maxResponseBytes, 1),
    },
    consensus: {
      timeoutCommitMs: duration(r, "consensus.timeout_commit", d.consensus.timeoutCommitMs, path),
      createEmptyBlocks: r.bool("consensus.create_empty_blocks", d.consensus.createEmptyBlocks),
      maxBlockTxs: r.int("consensus.max_block_txs", d.consensus.maxBlockTxs, 1),
    },
    mempool: {
      size: r.int("mempool.size", d.mempool.size, 1),
      maxTxsBytes: r.int("mempool.max_txs_bytes", d.mempool.maxTxsBytes, 1),
      maxTxBytes: r.int("mempool.max_tx_bytes", d.mempool.maxTxBytes, 1),
    },
  };
}

export function renderConfigToml(c: NodeConfig): string {
  return `# chaind node configuration (config.toml), CometBFT key names

# A custom human-readable name for this node.
moniker = ${JSON.stringify(c.moniker)}

#######################################################
###       RPC Server Configuration Options          ###
#######################################################
[rpc]
# TCP address for the CometBFT-compatible JSON-RPC server.
laddr = ${JSON.stringify(c.rpc.laddr)}
max_body_bytes = ${c.rpc.maxBodyBytes}
read_timeout = "${formatGoDuration(c.rpc.readTimeoutMs)}"
timeout_broadcast_tx_commit = "${formatGoDuration(c.rpc.timeoutBroadcastTxCommitMs)}"
# Connections served at once (0: no limit); more wait until one closes.
max_open_connections = ${c.rpc.maxOpenConnections}
# Requests one JSON-RPC batch may hold (0: no limit); a larger batch gets one error.
max_request_batch_size = ${c.rpc.maxRequestBatchSize}
# The largest answer, single or batch, in bytes (not a CometBFT key); a larger one is replaced by a JSON-RPC error.
max_response_bytes = ${c.rpc.maxResponseBytes}

#######################################################
###         Consensus Configuration Options         ###
#######################################################
[consensus]
# Time between committing a block and starting the next one: the block time of the embedded producer.
timeout_commit = "${formatGoDuration(c.consensus.timeoutCommitMs)}"
# When false, a block is made only when the mempool holds transactions.
create_empty_blocks = ${c.consensus.createEmptyBlocks}
# At most this many transactions go into one block.
max_block_txs = ${c.consensus.maxBlockTxs}

#######################################################
###          Mempool Configuration Options          ###
#######################################################
[mempool]
size = ${c.mempool.size}
max_txs_bytes = ${c.mempool.maxTxsBytes}
max_tx_bytes = ${c.mempool.maxTxBytes}
`;
}
