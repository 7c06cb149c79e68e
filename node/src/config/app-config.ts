import {
  type ConfigOf,
  type CrossCheckProblem,
  defineTable,
  renderToml,
  section,
  setting,
  tableDefaults,
} from "@chaind/core/config-table";
import { CUSTOM_PRUNING_FLOORS, PRUNING_STRATEGIES } from "../store/pruning.js";
import { readTomlConfig } from "./toml-file.js";
import { tomlBool, tomlChoice, tomlDecCoins, tomlString, tomlWholeNumber } from "./toml-setting-types.js";

const whole = tomlWholeNumber({ min: 0 });
/** Cosmos's template writes these numbers as strings. */
const quotedWhole = tomlWholeNumber({ min: 0, quoted: true });
const positive = tomlWholeNumber({ min: 1 });
const quotedPositive = tomlWholeNumber({ min: 1, quoted: true });

/**
 * `config/app.toml`: the application's settings, with the Cosmos SDK's names and defaults. Timeouts are whole
 * seconds, as Cosmos writes them.
 */
export const APP_TOML = defineTable({
  name: "app.toml",
  title: "Base Configuration",
  entries: {
    minimumGasPrices: setting({
      name: "minimum-gas-prices",
      type: tomlDecCoins,
      default: "",
      doc: 'Minimum gas prices a validator accepts for a transaction in CheckTx, e.g. "0.025stake". `start` refuses to run while this is empty; "0stake" is an explicit choice to accept transactions without fees. --minimum-gas-prices and the CHAIND_MINIMUM_GAS_PRICES environment variable override it.',
    }),
    pruning: setting({
      name: "pruning",
      type: tomlChoice(PRUNING_STRATEGIES),
      default: "default",
      doc: "Which states stay readable. default: the last 362880, pruned every 10 blocks; nothing: every state; everything: the last 2, pruned every 10 blocks; custom: pruning-keep-recent and pruning-interval.",
    }),
    pruningKeepRecent: setting({
      name: "pruning-keep-recent",
      type: quotedWhole,
      default: 0,
      doc: `With pruning = "custom": how many recent states stay readable (at least ${CUSTOM_PRUNING_FLOORS.keepRecent}).`,
    }),
    pruningInterval: setting({
      name: "pruning-interval",
      type: quotedWhole,
      default: 0,
      doc: `With pruning = "custom": prune at every height divisible by this (at least ${CUSTOM_PRUNING_FLOORS.interval}).`,
    }),
    haltHeight: setting({
      name: "halt-height",
      type: whole,
      default: 0,
      doc: "Stop the node cleanly after committing this height (0 = off).",
    }),
    haltTime: setting({
      name: "halt-time",
      type: whole,
      default: 0,
      unit: "Unix seconds",
      doc: "Stop the node cleanly after the first block whose time is at or past this time (0 = off).",
    }),
    minRetainBlocks: setting({
      name: "min-retain-blocks",
      type: whole,
      default: 0,
      doc: "Blocks older than this many are eligible for removal from the block store (0 = keep all).",
    }),
    queryGasLimit: setting({
      name: "query-gas-limit",
      type: quotedWhole,
      // Cosmos's default is 0. Every store read and iteration step costs gas, so this bounds the walk an offset
      // or count_total asks for: 10M is some 35k accounts walked, about half a second here.
      default: 10_000_000,
      doc: "The most gas a query (gRPC, REST, RPC abci_query) or a tx simulation may use (0 = no limit for queries, Cosmos's default). Simulations are always capped: by the smaller of this and the block's max_gas in genesis, or by 10000000 when neither is set.",
    }),
    telemetry: section("telemetry", "Telemetry", {
      enabled: setting({
        name: "enabled",
        type: tomlBool,
        default: false,
        doc: "Serve Prometheus metrics on /metrics of the address below.",
      }),
      address: setting({
        name: "address",
        type: tomlString,
        default: "localhost:26660",
        doc: "host:port of the metrics listener (not a Cosmos key).",
      }),
    }),
    api: section("api", "REST API", {
      enable: setting({ name: "enable", type: tomlBool, default: false, doc: "Serve the REST gateway." }),
      swagger: setting({
        name: "swagger",
        type: tomlBool,
        default: false,
        doc: "Serve Swagger UI and the OpenAPI document on /swagger.",
      }),
      address: setting({
        name: "address",
        type: tomlString,
        default: "tcp://localhost:1317",
        doc: "Where the REST gateway listens.",
      }),
      maxOpenConnections: setting({
        name: "max-open-connections",
        type: whole,
        default: 1000,
        doc: "Connections served at once (0 = no limit).",
      }),
      rpcReadTimeout: setting({
        name: "rpc-read-timeout",
        type: whole,
        default: 10,
        unit: "seconds",
        doc: "The longest a request may take to arrive (0 = no limit).",
      }),
      rpcWriteTimeout: setting({
        name: "rpc-write-timeout",
        type: whole,
        default: 0,
        unit: "seconds",
        doc: "The longest an answer may take to leave (0 = no limit).",
      }),
      rpcMaxBodyBytes: setting({
        name: "rpc-max-body-bytes",
        type: positive,
        default: 1_000_000,
        unit: "bytes",
        doc: "The largest request body.",
      }),
      enabledUnsafeCors: setting({
        name: "enabled-unsafe-cors",
        type: tomlBool,
        default: false,
        doc: "For development only: allow any origin. Put a reverse proxy in front of production nodes instead.",
      }),
    }),
    grpc: section("grpc", "gRPC", {
      enable: setting({ name: "enable", type: tomlBool, default: true, doc: "Serve gRPC." }),
      address: setting({
        name: "address",
        type: tomlString,
        default: "localhost:9090",
        doc: "host:port where gRPC listens.",
      }),
      maxRecvMsgSize: setting({
        name: "max-recv-msg-size",
        type: quotedPositive,
        default: 10 * 1024 * 1024,
        unit: "bytes",
        doc: "The largest message the server receives.",
      }),
      maxSendMsgSize: setting({
        name: "max-send-msg-size",
        type: quotedPositive,
        default: 2147483647,
        unit: "bytes",
        doc: "The largest message the server sends.",
      }),
      maxOpenConnections: setting({
        name: "max-open-connections",
        type: whole,
        default: 1000,
        doc: "Connections served at once (0 = no limit); more are closed as they arrive. Not a Cosmos key.",
      }),
      maxConcurrentStreams: setting({
        name: "max-concurrent-streams",
        type: positive,
        default: 100,
        doc: "Calls one connection may have open at once (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); a client queues the rest. Not a Cosmos key.",
      }),
      maxConnectionIdle: setting({
        name: "max-connection-idle",
        type: whole,
        default: 60,
        unit: "seconds",
        doc: "A connection with no call open for this long is closed (0 = never); a client reconnects for its next call. Not a Cosmos key.",
      }),
      readTimeout: setting({
        name: "read-timeout",
        type: whole,
        default: 10,
        unit: "seconds",
        doc: "The longest a call's request may take to arrive, counted from the call's start (a streaming call: from its previous message); past it the call ends with DEADLINE_EXCEEDED (0 = no limit). Not a Cosmos key.",
      }),
      maxRecvBufferPerConnection: setting({
        name: "max-recv-buffer-per-connection",
        type: positive,
        default: 32 * 1024 * 1024,
        unit: "bytes",
        doc: "The most bytes of request messages still arriving that one connection may make the node hold, at least max-recv-msg-size; the call whose bytes pass it ends with RESOURCE_EXHAUSTED. Not a Cosmos key.",
      }),
      maxRecvBuffer: setting({
        name: "max-recv-buffer",
        type: positive,
        default: 128 * 1024 * 1024,
        unit: "bytes",
        doc: "The same across all connections, at least max-recv-buffer-per-connection. Not a Cosmos key.",
      }),
    }),
    stateSync: section("state-sync", "State Sync Snapshots", {
      snapshotInterval: setting({
        name: "snapshot-interval",
        type: whole,
        default: 0,
        unit: "blocks",
        doc: "Take a state snapshot (data/snapshots/) after committing every height divisible by this (0 = off). Our snapshot formats (1 under the embedded engine, 2 under CometBFT, served to nodes that state-sync) are not wire-compatible with Cosmos's IAVL snapshots.",
      }),
      snapshotKeepRecent: setting({
        name: "snapshot-keep-recent",
        type: whole,
        default: 2,
        doc: "How many of the newest snapshots to keep (0 = keep all).",
      }),
    }),
  },
  check: (c) => [...pruningProblems(c), ...grpcBufferProblems(c.grpc)],
});

export type AppConfig = ConfigOf<typeof APP_TOML.entries>;

function grpcBufferProblems(g: {
  maxRecvMsgSize: number;
  maxRecvBufferPerConnection: number;
  maxRecvBuffer: number;
}): CrossCheckProblem[] {
  const problems: CrossCheckProblem[] = [];
  // Below these, the largest message the server accepts could never arrive whole.
  if (g.maxRecvBufferPerConnection < g.maxRecvMsgSize)
    problems.push({
      key: "grpc.max-recv-buffer-per-connection",
      expected: `a whole number ≥ grpc.max-recv-msg-size (${g.maxRecvMsgSize})`,
      got: g.maxRecvBufferPerConnection,
    });
  if (g.maxRecvBuffer < g.maxRecvBufferPerConnection)
    problems.push({
      key: "grpc.max-recv-buffer",
      expected: `a whole number ≥ grpc.max-recv-buffer-per-connection (${g.maxRecvBufferPerConnection})`,
      got: g.maxRecvBuffer,
    });
  return problems;
}

function pruningProblems(c: {
  pruning: string;
  pruningKeepRecent: number;
  pruningInterval: number;
}): CrossCheckProblem[] {
  if (c.pruning !== "custom") return [];
  const problems: CrossCheckProblem[] = [];
  if (c.pruningKeepRecent < CUSTOM_PRUNING_FLOORS.keepRecent)
    problems.push({
      key: "pruning-keep-recent",
      expected: `a whole number ≥ ${CUSTOM_PRUNING_FLOORS.keepRecent} with pruning = "custom"`,
      got: c.pruningKeepRecent,
    });
  if (c.pruningInterval < CUSTOM_PRUNING_FLOORS.interval)
    problems.push({
      key: "pruning-interval",
      expected: `a whole number ≥ ${CUSTOM_PRUNING_FLOORS.interval} with pruning = "custom" (to keep every state, set pruning = "nothing")`,
      got: c.pruningInterval,
    });
  return problems;
}

export function defaultAppConfig(): AppConfig {
  return tableDefaults(APP_TOML);
}

export function readAppConfig(path: string): AppConfig {
  return readTomlConfig(APP_TOML, path);
}

/** The commented app.toml that `chaind init` writes. */
export function renderAppToml(c: AppConfig): string {
  return renderToml(APP_TOML, c, ["chaind application configuration (app.toml)"]);
}
