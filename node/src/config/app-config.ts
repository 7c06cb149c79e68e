import { readTomlFile, TomlReader } from "./toml-file.js";

/** `config/app.toml`: the application's settings, with Cosmos SDK defaults. */
export interface AppConfig {
  minimumGasPrices: string;
  pruning: string;
  pruningKeepRecent: number;
  pruningInterval: number;
  haltHeight: number;
  haltTime: number;
  minRetainBlocks: number;
  /** Gas one query or simulation may use; 0: queries unlimited (Cosmos), simulations capped all the same. */
  queryGasLimit: number;
  api: {
    enable: boolean;
    swagger: boolean;
    address: string;
    maxOpenConnections: number;
    rpcReadTimeout: number;
    rpcWriteTimeout: number;
    rpcMaxBodyBytes: number;
    enabledUnsafeCors: boolean;
  };
  grpc: { enable: boolean; address: string; maxRecvMsgSize: number; maxSendMsgSize: number };
  telemetry: { enabled: boolean; address: string };
}

export function defaultAppConfig(): AppConfig {
  return {
    minimumGasPrices: "",
    pruning: "default",
    pruningKeepRecent: 0,
    pruningInterval: 0,
    haltHeight: 0,
    haltTime: 0,
    minRetainBlocks: 0,
    queryGasLimit: 0,
    api: {
      enable: false,
      swagger: false,
      address: "tcp://localhost:1317",
      maxOpenConnections: 1000,
      rpcReadTimeout: 10,
      rpcWriteTimeout: 0,
      rpcMaxBodyBytes: 1_000_000,
      enabledUnsafeCors: false,
    },
    grpc: {
      enable: true,
      address: "localhost:9090",
      maxRecvMsgSize: 10 * 1024 * 1024,
      maxSendMsgSize: 2147483647,
    },
    telemetry: { enabled: false, address: "localhost:26660" },
  };
}

export function readAppConfig(path: string): AppConfig {
  const r = new TomlReader(readTomlFile(path), path);
  const d = defaultAppConfig();
  return {
    minimumGasPrices: r.string("minimum-gas-prices", d.minimumGasPrices),
    pruning: r.string("pruning", d.pruning),
    pruningKeepRecent: r.int("pruning-keep-recent", d.pruningKeepRecent),
    pruningInterval: r.int("pruning-interval", d.pruningInterval),
    haltHeight: r.int("halt-height", d.haltHeight),
    haltTime: r.int("halt-time", d.haltTime),
    minRetainBlocks: r.int("min-retain-blocks", d.minRetainBlocks),
    queryGasLimit: r.int("query-gas-limit", d.queryGasLimit),
    api: {
      enable: r.bool("api.enable", d.api.enable),
      swagger: r.bool("api.swagger", d.api.swagger),
      address: r.string("api.address", d.api.address),
      maxOpenConnections: r.int("api.max-open-connections", d.api.maxOpenConnections),
      rpcReadTimeout: r.int("api.rpc-read-timeout", d.api.rpcReadTimeout),
      rpcWriteTimeout: r.int("api.rpc-write-timeout", d.api.rpcWriteTimeout),
      rpcMaxBodyBytes: r.int("api.rpc-max-body-bytes", d.api.rpcMaxBodyBytes, 1),
      enabledUnsafeCors: r.bool("api.enabled-unsafe-cors", d.api.enabledUnsafeCors),
    },
    grpc: {
      enable: r.bool("grpc.enable", d.grpc.enable),
      address: r.string("grpc.address", d.grpc.address),
      maxRecvMsgSize: r.int("grpc.max-recv-msg-size", d.grpc.maxRecvMsgSize, 1),
      maxSendMsgSize: r.int("grpc.max-send-msg-size", d.grpc.maxSendMsgSize, 1),
    },
    telemetry: {
      enabled: r.bool("telemetry.enabled", d.telemetry.enabled),
      address: r.string("telemetry.address", d.telemetry.address),
    },
  };
}

const q = (s: string) => JSON.stringify(s);

/** The commented app.toml that `chaind init` writes. */
export function renderAppToml(c: AppConfig): string {
  return `# chaind application configuration (app.toml)

###############################################################################
###                           Base Configuration                            ###
###############################################################################

# Minimum gas prices a validator accepts for a transaction in CheckTx, e.g. "0.025stake". \`start\` refuses
# to run while this is empty; "0stake" is an explicit choice to accept transactions without fees.
# --minimum-gas-prices and the CHAIND_MINIMUM_GAS_PRICES environment variable override it.
minimum-gas-prices = ${q(c.minimumGasPrices)}

# default: keep the last 362880 states, prune every 10 blocks
# nothing: keep every state
# everything: keep the last 2 states, prune every 10 blocks
# custom: use pruning-keep-recent and pruning-interval
pruning = ${q(c.pruning)}
pruning-keep-recent = "${c.pruningKeepRecent}"
pruning-interval = "${c.pruningInterval}"

# Stop the node cleanly after committing this height (0 = off).
halt-height = ${c.haltHeight}
# Stop the node cleanly after the first block whose time is at or past this Unix time (0 = off).
halt-time = ${c.haltTime}

# Blocks older than this many are eligible for removal from the block store (0 = keep all).
min-retain-blocks = ${c.minRetainBlocks}

# The most gas a query (gRPC, REST, RPC abci_query) or a tx simulation may use (0 = no limit for queries).
# Simulations are always capped: by the smaller of this and the block's max_gas in genesis, or by 10000000
# when neither is set.
query-gas-limit = "${c.queryGasLimit}"

###############################################################################
###                           Telemetry                                     ###
###############################################################################

[telemetry]
# Serve Prometheus metrics on /metrics of this address.
enabled = ${c.telemetry.enabled}
address = ${q(c.telemetry.address)}

###############################################################################
###                           REST API                                      ###
###############################################################################

[api]
enable = ${c.api.enable}
# Serve Swagger UI and the OpenAPI document on /swagger.
swagger = ${c.api.swagger}
address = ${q(c.api.address)}
max-open-connections = ${c.api.maxOpenConnections}
# Seconds.
rpc-read-timeout = ${c.api.rpcReadTimeout}
rpc-write-timeout = ${c.api.rpcWriteTimeout}
rpc-max-body-bytes = ${c.api.rpcMaxBodyBytes}
# For development only: allow any origin. Put a reverse proxy in front of production nodes instead.
enabled-unsafe-cors = ${c.api.enabledUnsafeCors}

###############################################################################
###                           gRPC                                          ###
###############################################################################

[grpc]
enable = ${c.grpc.enable}
address = ${q(c.grpc.address)}
max-recv-msg-size = "${c.grpc.maxRecvMsgSize}"
max-send-msg-size = "${c.grpc.maxSendMsgSize}"
`;
}
