import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { ConfigError, tableRows, withGeneratedRegions } from "@chaind/core/config-table";
import { parse } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  APP_TOML,
  defaultAppConfig,
  readAppConfig,
  renderAppToml,
} from "../../../node/src/config/app-config.js";
import {
  CLIENT_TOML,
  defaultClientConfig,
  readClientConfig,
  renderClientToml,
} from "../../../node/src/config/client-config.js";
import { nodeConfigDocRegions } from "../../../node/src/config/config-docs.js";
import { readHomeConfig } from "../../../node/src/config/home-config.js";
import { HomeLayout } from "../../../node/src/config/home-layout.js";
import {
  CONFIG_TOML,
  defaultNodeConfig,
  readNodeConfig,
  renderConfigToml,
} from "../../../node/src/config/node-config.js";
import { tomlGoDuration } from "../../../node/src/config/toml-setting-types.js";
import { pruningOptions } from "../../../node/src/store/pruning.js";

const root = resolve(import.meta.dirname, "../../..");
/** Files as chaind 0.1.0 wrote them (init, with some values changed), before the config tables. */
const previous = join(root, "fixtures/config/chaind-0.1.0");

/** Every key and default of the three files as chaind wrote them before the tables: a rendered home keeps them. */
const APP_KEYS = {
  "minimum-gas-prices": "",
  pruning: "default",
  "pruning-keep-recent": "0",
  "pruning-interval": "0",
  "halt-height": 0,
  "halt-time": 0,
  "min-retain-blocks": 0,
  "query-gas-limit": "10000000",
  telemetry: { enabled: false, address: "localhost:26660" },
  api: {
    enable: false,
    swagger: false,
    address: "tcp://localhost:1317",
    "max-open-connections": 1000,
    "rpc-read-timeout": 10,
    "rpc-write-timeout": 0,
    "rpc-max-body-bytes": 1000000,
    "enabled-unsafe-cors": false,
  },
  grpc: {
    enable: true,
    address: "localhost:9090",
    "max-recv-msg-size": "10485760",
    "max-send-msg-size": "2147483647",
    "max-open-connections": 1000,
    "max-concurrent-streams": 100,
    "max-connection-idle": 60,
    "read-timeout": 10,
    "max-recv-buffer-per-connection": 33554432,
    "max-recv-buffer": 134217728,
  },
  "state-sync": { "snapshot-interval": 0, "snapshot-keep-recent": 2 },
};
const CONFIG_KEYS = {
  moniker: "m",
  consensus_engine: "embedded",
  proxy_app: "tcp://127.0.0.1:26658",
  rpc: {
    laddr: "tcp://127.0.0.1:26657",
    max_body_bytes: 1000000,
    read_timeout: "10s",
    timeout_broadcast_tx_commit: "10s",
    max_open_connections: 900,
    max_request_batch_size: 10,
    max_response_bytes: 67108864,
    // CometBFT's WebSocket subscription bounds, with its defaults.
    max_subscription_clients: 100,
    max_subscriptions_per_client: 5,
    experimental_subscription_buffer_size: 200,
    experimental_websocket_write_buffer_size: 200,
    experimental_close_on_slow_client: false,
  },
  p2p: {
    laddr: "tcp://127.0.0.1:26656",
    persistent_peers: "",
    addr_book_strict: true,
    allow_duplicate_ip: false,
  },
  consensus: { timeout_commit: "5s", create_empty_blocks: true, max_block_txs: 5000 },
  mempool: { size: 5000, max_txs_bytes: 1073741824, max_tx_bytes: 1048576 },
};
const CLIENT_KEYS = {
  "chain-id": "c-1",
  "keyring-backend": "file",
  output: "text",
  node: "tcp://localhost:26657",
  "broadcast-mode": "sync",
};

const plain = (text: string) => JSON.parse(JSON.stringify(parse(text)));

describe("app.toml, config.toml and client.toml from their tables", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "config-files-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it("render the same keys and defaults as before the tables", () => {
    expect(plain(renderAppToml(defaultAppConfig()))).toEqual(APP_KEYS);
    expect(plain(renderConfigToml(defaultNodeConfig("m")))).toEqual(CONFIG_KEYS);
    expect(plain(renderClientToml(defaultClientConfig("c-1")))).toEqual(CLIENT_KEYS);
  });

  it("read the files chaind wrote before the tables, with their values", () => {
    const app = readAppConfig(join(previous, "app.toml"));
    expect(app).toEqual({
      ...defaultAppConfig(),
      minimumGasPrices: "0.025stake",
      pruning: "custom",
      pruningKeepRecent: 5,
      pruningInterval: 11,
      haltTime: 17,
      // Written when the default was 0: a home keeps what its file says (0: no limit, as in Cosmos).
      queryGasLimit: 0,
      telemetry: { enabled: true, address: "localhost:26660" },
      api: { ...defaultAppConfig().api, enable: true, swagger: true },
    });
    const node = readNodeConfig(join(previous, "config.toml"));
    const d = defaultNodeConfig('va"l');
    expect(node).toEqual({
      ...d,
      rpc: { ...d.rpc, readTimeoutMs: 90_000 },
      consensus: { ...d.consensus, timeoutCommitMs: 250, createEmptyBlocks: false },
    });
    expect(readClientConfig(join(previous, "client.toml"))).toEqual({
      ...defaultClientConfig("chain-1"),
      keyringBackend: "test",
      node: "tcp://127.0.0.1:5",
    });
  });

  it("read what they render, for the defaults and for changed values", () => {
    const app = defaultAppConfig();
    app.pruning = "custom";
    app.pruningKeepRecent = 100;
    app.pruningInterval = 19;
    app.api.rpcReadTimeout = 30;
    app.grpc.maxRecvMsgSize = 1;
    expect(readAppConfig(write("app.toml", renderAppToml(app)))).toEqual(app);
    expect(readAppConfig(write("app.toml", renderAppToml(defaultAppConfig())))).toEqual(defaultAppConfig());
    const node = defaultNodeConfig('a # moniker with "quotes" and \\ and \u007f');
    node.consensus.timeoutCommitMs = 250;
    node.rpc.timeoutBroadcastTxCommitMs = 90_500;
    expect(readNodeConfig(write("config.toml", renderConfigToml(node)))).toEqual(node);
    const client = { ...defaultClientConfig("c"), output: "json" };
    expect(readClientConfig(write("client.toml", renderClientToml(client)))).toEqual(client);
  });

  it("read an app.toml written by a Cosmos SDK chain and a config.toml written by CometBFT, extra keys and all", () => {
    const app = write(
      "app.toml",
      `minimum-gas-prices = "0.0025uatom"
query-gas-limit = "0"
pruning = "custom"
pruning-keep-recent = "100"
pruning-interval = "19"
halt-height = 0
halt-time = 0
min-retain-blocks = 0
inter-block-cache = true
index-events = []
iavl-cache-size = 781250
app-db-backend = ""

[telemetry]
service-name = ""
enabled = false
prometheus-retention-time = 0
global-labels = []

[api]
enable = true
swagger = false
address = "tcp://localhost:1317"
max-open-connections = 1000
rpc-read-timeout = 10
rpc-write-timeout = 0
rpc-max-body-bytes = 1000000
enabled-unsafe-cors = false

[grpc]
enable = true
address = "localhost:9090"
max-recv-msg-size = "10485760"
max-send-msg-size = "2147483647"

[state-sync]
snapshot-interval = 0
snapshot-keep-recent = 2

[mempool]
max-txs = -1
`,
    );
    expect(readAppConfig(app)).toMatchObject({
      minimumGasPrices: "0.0025uatom",
      pruning: "custom",
      pruningKeepRecent: 100,
      pruningInterval: 19,
      api: { enable: true, rpcReadTimeout: 10 },
    });
    const node = write(
      "config.toml",
      `version = "0.38.12"
proxy_app = "tcp://127.0.0.1:26658"
moniker = "my-node"
db_backend = "goleveldb"

[rpc]
laddr = "tcp://127.0.0.1:26657"
cors_allowed_origins = []
max_open_connections = 900
timeout_broadcast_tx_commit = "10s"
max_request_batch_size = 10
max_body_bytes = 1000000
max_header_bytes = 1048576

[p2p]
laddr = "tcp://0.0.0.0:26656"

[mempool]
type = "flood"
size = 5000
max_txs_bytes = 1073741824
max_tx_bytes = 1048576
cache_size = 10000

[consensus]
timeout_propose = "3s"
timeout_commit = "1s"
create_empty_blocks = true
create_empty_blocks_interval = "0s"
`,
    );
    expect(readNodeConfig(node)).toMatchObject({
      moniker: "my-node",
      rpc: { timeoutBroadcastTxCommitMs: 10_000, readTimeoutMs: 10_000 },
      consensus: { timeoutCommitMs: 1000 },
    });
  });

  it("report every bad value of a file at once, naming the file, the key and the expected form", () => {
    const path = write(
      "app.toml",
      'pruning-keep-recent = "abc"\nhalt-height = -1\n[api]\nenable = "yes"\n[grpc]\nmax-recv-msg-size = "0"\n',
    );
    let error: unknown;
    try {
      readAppConfig(path);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).message.split("\n")).toEqual([
      `${path}: pruning-keep-recent: expected a whole number ≥ 0, got "abc"`,
      `${path}: halt-height: expected a whole number ≥ 0, got -1`,
      `${path}: api.enable: expected true or false, got "yes"`,
      `${path}: grpc.max-recv-msg-size: expected a whole number ≥ 1, got "0"`,
    ]);
  });

  it("name an unreadable or broken file as a whole", () => {
    expect(() => readNodeConfig(join(dir, "none.toml"))).toThrow(
      `cannot read ${join(dir, "none.toml")}: ENOENT`,
    );
    const broken = write("config.toml", "[rpc\nladdr = 1\n");
    expect(() => readNodeConfig(broken)).toThrow(new RegExp(`^invalid TOML in ${broken}: `));
    // client.toml alone may be absent.
    expect(readClientConfig(join(dir, "client.toml"))).toEqual(defaultClientConfig(""));
  });

  it("refuse WebSocket buffers below CometBFT's floors", () => {
    const path = write(
      "config.toml",
      "[rpc]\nexperimental_subscription_buffer_size = 300\nexperimental_websocket_write_buffer_size = 250\n",
    );
    expect(() => readNodeConfig(path)).toThrow(
      `${path}: rpc.experimental_websocket_write_buffer_size: expected at least experimental_subscription_buffer_size (300), got 250`,
    );
    const small = write("config.toml", "[rpc]\nexperimental_subscription_buffer_size = 99\n");
    expect(() => readNodeConfig(small)).toThrow(
      /experimental_subscription_buffer_size: expected a whole number ≥ 100/,
    );
  });

  it("validate custom pruning once, while reading, against Cosmos's floors", () => {
    const read = (keep: string, interval: string) =>
      readAppConfig(
        write(
          "app.toml",
          `pruning = "custom"\npruning-keep-recent = "${keep}"\npruning-interval = "${interval}"\n`,
        ),
      );
    const path = join(dir, "app.toml");
    expect(() => read("1", "0")).toThrow(
      [
        `${path}: pruning-keep-recent: expected a whole number ≥ 2 with pruning = "custom", got "1"`,
        `${path}: pruning-interval: expected a whole number ≥ 10 with pruning = "custom" (to keep every state, set pruning = "nothing"), got "0"`,
      ].join("\n"),
    );
    expect(() => read("2", "9")).toThrow(/pruning-interval: expected a whole number ≥ 10/);
    // A bad setting elsewhere does not hide the pruning floors.
    const both = write(
      "app.toml",
      'halt-height = -1\npruning = "custom"\npruning-keep-recent = "1"\npruning-interval = "10"\n',
    );
    expect(() => readAppConfig(both)).toThrow(
      [
        `${both}: halt-height: expected a whole number ≥ 0, got -1`,
        `${both}: pruning-keep-recent: expected a whole number ≥ 2 with pruning = "custom", got "1"`,
      ].join("\n"),
    );
    expect(pruningOptions(read("2", "10"))).toEqual({ strategy: "custom", keepRecent: 2, interval: 10 });
    // The other strategies ignore the two numbers, as Cosmos does.
    const other = readAppConfig(write("app.toml", 'pruning = "everything"\npruning-interval = "3"\n'));
    expect(pruningOptions(other)).toEqual({ strategy: "everything", keepRecent: 2, interval: 10 });
    expect(pruningOptions(defaultAppConfig())).toEqual({
      strategy: "default",
      keepRecent: 362880,
      interval: 10,
    });
  });

  it("refuse gRPC buffers too small for the largest message the server accepts", () => {
    const path = write(
      "app.toml",
      '[grpc]\nmax-recv-msg-size = "2000"\nmax-recv-buffer-per-connection = 1999\nmax-recv-buffer = 1000\n',
    );
    expect(() => readAppConfig(path)).toThrow(
      [
        `${path}: grpc.max-recv-buffer-per-connection: expected a whole number ≥ grpc.max-recv-msg-size (2000), got 1999`,
        `${path}: grpc.max-recv-buffer: expected a whole number ≥ grpc.max-recv-buffer-per-connection (1999), got 1000`,
      ].join("\n"),
    );
    const fine = write(
      "app.toml",
      '[grpc]\nmax-recv-msg-size = "2000"\nmax-recv-buffer-per-connection = 2000\n',
    );
    expect(readAppConfig(fine).grpc.maxRecvBufferPerConnection).toBe(2000);
  });

  it("read a home's app.toml and config.toml together, reporting both files' problems at once", () => {
    const layout = new HomeLayout(join(dir, "home"));
    expect(() => readHomeConfig(layout)).toThrow(`cannot read ${layout.configDir}: ENOENT`);
    mkdirSync(layout.configDir, { recursive: true });
    writeFileSync(layout.appToml, 'pruning = "sometimes"\n');
    writeFileSync(layout.configToml, '[consensus]\ntimeout_commit = "5"\n');
    expect(() => readHomeConfig(layout)).toThrow(
      [
        `${layout.appToml}: pruning: expected one of default, nothing, everything, custom, got "sometimes"`,
        `${layout.configToml}: consensus.timeout_commit: expected a Go duration such as 300ms, 5s or 1m30s, got "5"`,
      ].join("\n"),
    );
    writeFileSync(layout.appToml, 'pruning = "nothing"\n');
    writeFileSync(layout.configToml, "");
    expect(readHomeConfig(layout)).toEqual({
      app: { ...defaultAppConfig(), pruning: "nothing" },
      node: defaultNodeConfig("node"),
    });
  });

  it("keep one unit convention for timeouts per file: seconds in app.toml, Go durations in config.toml", () => {
    const appRows = tableRows(APP_TOML);
    expect(appRows.filter((r) => r.setting.type === tomlGoDuration)).toEqual([]);
    expect(appRows.filter((r) => /timeout|idle/.test(r.key)).map((r) => [r.key, r.setting.unit])).toEqual([
      ["api.rpc-read-timeout", "seconds"],
      ["api.rpc-write-timeout", "seconds"],
      ["grpc.max-connection-idle", "seconds"],
      ["grpc.read-timeout", "seconds"],
    ]);
    const configRows = tableRows(CONFIG_TOML);
    expect(
      configRows.filter((r) => r.key.includes("timeout")).every((r) => r.setting.type === tomlGoDuration),
    ).toBe(true);
    expect(configRows.filter((r) => /second/.test(r.setting.unit ?? ""))).toEqual([]);
    expect(tableRows(CLIENT_TOML).filter((r) => r.setting.unit !== undefined)).toEqual([]);
  });

  it("docs/CONFIG.md holds the tables the code declares", () => {
    const path = join(root, "docs/CONFIG.md");
    const doc = readFileSync(path, "utf8");
    expect(
      doc === withGeneratedRegions(doc, nodeConfigDocRegions()),
      "docs/CONFIG.md is stale: run npm run docs:config",
    ).toBe(true);
    for (const row of tableRows(APP_TOML)) expect(doc).toContain(row.setting.doc);
  });
});
