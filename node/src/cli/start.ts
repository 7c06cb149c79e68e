import type { CommandModule } from "yargs";
import { parseDecCoins } from "../app/dec-coins.js";
import { ModuleHaltError } from "../app/module-halt-error.js";
import type { AppDefinition } from "../chain/app-definition.js";
import { ChainNode } from "../chain/chain-node.js";
import { CometNode } from "../chain/comet-node.js";
import { CliError } from "../client/cli-error.js";
import { type HomeConfig, readHomeConfig } from "../config/home-config.js";
import { HomeLayout } from "../config/home-layout.js";
import type { ConfigOverrides } from "../config/toml-file.js";
import type { StopReason } from "../consensus/block-producer.js";
import { ChainError } from "../errors/chain-error.js";
import { SdkErrors } from "../errors/sdk-errors.js";
import type { NodeServer } from "../server/node-server.js";
import { closeNodeServers, startNodeServers } from "../server/node-servers.js";
import { spawnRpcThread } from "../server/rpc/json-rpc-server.js";
import { cometbftBinary } from "./cometbft-binary.js";
import { flagEnvName, flagOrEnv } from "./flag-env.js";
import type { GlobalArgs } from "./global-options.js";
import { loggerFromArgs } from "./logger-from-args.js";
import { waitsForSupervisorAfterHalt } from "./supervisor-halt-wait.js";

/** Cosmos's int-slice flag: `--unsafe-skip-upgrades 10,20`, repeated, or (yargs' array) `10 20`. */
function skipHeights(raw: (string | number)[] | undefined): number[] {
  const heights = (raw ?? []).flatMap((item) => String(item).split(","));
  return heights.map((h) => {
    const n = /^\s*\d+\s*$/.test(h) ? Number(h) : Number.NaN;
    if (!Number.isSafeInteger(n) || n <= 0)
      throw new CliError(`--unsafe-skip-upgrades: heights must be positive integers, got ${h}`);
    return n;
  });
}

function haltHeight(given: number | undefined, app: string): number | undefined {
  const raw = flagOrEnv(given === undefined ? undefined : String(given), app, "halt-height");
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new CliError(
      `--halt-height (or ${flagEnvName(app, "halt-height")}) must be a non-negative integer, got ${raw}`,
    );
  return n;
}

/**
 * The node's minimum gas prices: flag, else environment, else app.toml. Like Cosmos, an empty value is refused
 * (a node would take every tx for free); an explicit zero such as "0stake" is the operator's choice.
 */
function minimumGasPrices(given: string | undefined, app: string, home: string, config: HomeConfig): string {
  const value = flagOrEnv(given, app, "minimum-gas-prices") ?? config.app.minimumGasPrices;
  const appToml = new HomeLayout(home).appToml;
  if (value.trim() === "") {
    const cosmos = ChainError.wrap(
      SdkErrors.AppConfig,
      "set min gas price in app.toml or flag or env variable",
    );
    throw new CliError(
      `${cosmos.message} (minimum-gas-prices in ${appToml}, --minimum-gas-prices or ` +
        `${flagEnvName(app, "minimum-gas-prices")}; e.g. 0.025stake, or 0stake to accept txs without fees)`,
    );
  }
  try {
    parseDecCoins(value);
  } catch (e) {
    throw new CliError(
      `cannot start node: minimum-gas-prices ${JSON.stringify(value)}: ${(e as Error).message}`,
    );
  }
  return value;
}

/**
 * simd's start flags that stand in for a config key on this run: flag -> [file, dotted key]. A value is checked
 * as the file's would be.
 */
const CONFIG_FLAGS = {
  "rpc.laddr": ["node", "rpc.laddr", "the JSON-RPC listen address, e.g. tcp://127.0.0.1:26657"],
  "p2p.laddr": ["node", "p2p.laddr", "where CometBFT listens for peers (the cometbft engine)"],
  "grpc.address": ["app", "grpc.address", "the gRPC listen address, e.g. localhost:9090"],
  "api.address": ["app", "api.address", "the REST listen address, e.g. tcp://localhost:1317"],
  pruning: ["app", "pruning", "pruning strategy: default, nothing, everything or custom"],
  "pruning-keep-recent": ["app", "pruning-keep-recent", 'recent states to keep (with --pruning "custom")'],
  "pruning-interval": ["app", "pruning-interval", 'prune every this many heights (with --pruning "custom")'],
} as const;

type ConfigFlag = keyof typeof CONFIG_FLAGS;

/** The config keys the flags given set. */
function configOverrides(args: StartArgs): { app: ConfigOverrides; node: ConfigOverrides } {
  const out = { app: {} as ConfigOverrides, node: {} as ConfigOverrides };
  for (const [flag, [file, key]] of Object.entries(CONFIG_FLAGS)) {
    const given = (args as unknown as Record<string, unknown>)[flag];
    if (given === undefined) continue;
    const text = String(given);
    // Numbers come as text so a bad one is named as given; TOML would hold them as integers.
    const value = /^\d+$/.test(text) && key.startsWith("pruning-") ? Number(text) : text;
    out[file][key] = { value, source: "command line", key: `--${flag}` };
  }
  return out;
}

/** The listen addresses given on the command line, for the cometbft `start` runs beside it. */
function cometbftFlags(config: HomeConfig, overrides: ConfigOverrides): string[] {
  const flags: string[] = [];
  if (overrides["rpc.laddr"]) flags.push("--rpc.laddr", config.node.rpc.laddr);
  if (overrides["p2p.laddr"]) flags.push("--p2p.laddr", config.node.p2p.laddr);
  return flags;
}

interface StartArgs extends GlobalArgs {
  "halt-height"?: number;
  "minimum-gas-prices"?: string;
  "unsafe-skip-upgrades"?: (string | number)[];
  "consensus-engine"?: "embedded" | "cometbft";
  "with-comet"?: boolean;
  transport?: string;
  address?: string;
  cometbft?: string;
}

/** A node of either engine, as `start` runs it. */
interface RunningNode {
  readonly store: { latestHeight: number };
  run(): Promise<StopReason>;
  requestStop(): void;
  close(): Promise<void>;
}

/** `chaind start`: runs the node until SIGINT/SIGTERM (after the block in progress) or a halt. */
export function startCommand(def: AppDefinition): CommandModule<GlobalArgs, StartArgs> {
  return {
    command: "start",
    describe: "Run the full node",
    builder: (y) =>
      y
        .option("halt-height", {
          type: "number",
          describe: "stop after committing this height (overrides app.toml)",
        })
        .option("minimum-gas-prices", {
          type: "string",
          describe: `minimum gas prices CheckTx asks of a tx, e.g. 0.025stake (overrides app.toml and ${flagEnvName(def.name, "minimum-gas-prices")})`,
        })
        .option("unsafe-skip-upgrades", {
          type: "string",
          array: true,
          describe: "plan heights whose upgrade to skip (the plan is dropped, the chain goes on)",
        })
        .option("consensus-engine", {
          type: "string",
          choices: ["embedded", "cometbft"],
          describe:
            "who makes the blocks (overrides config.toml consensus_engine): chaind's own single-validator engine, or CometBFT over ABCI",
        })
        .option("with-comet", {
          type: "boolean",
          default: true,
          describe:
            "with the cometbft engine, run cometbft beside chaind on this home; false: serve ABCI only, for a cometbft the operator runs",
        })
        .option("transport", {
          type: "string",
          default: "socket",
          describe: "the ABCI transport (socket; the SDK's grpc transport is not served)",
        })
        .option("address", {
          type: "string",
          describe: "where to serve ABCI, tcp://host:port or unix:///path (default: config.toml proxy_app)",
        })
        .option("cometbft", {
          type: "string",
          describe: `the cometbft binary to run (default: ${flagEnvName(def.name, "cometbft")}, else cometbft on the PATH)`,
        })
        .options(
          Object.fromEntries(
            Object.entries(CONFIG_FLAGS).map(([flag, [file, , describe]]) => [
              flag,
              {
                type: "string",
                describe: `${describe} (overrides ${file === "app" ? "app.toml" : "config.toml"})`,
              } as const,
            ]),
          ) as Record<ConfigFlag, { type: "string"; describe: string }>,
        ) as never,
    handler: async (args) => {
      let config: HomeConfig;
      const overrides = configOverrides(args);
      try {
        config = readHomeConfig(new HomeLayout(args.home), overrides);
      } catch (e) {
        throw new CliError(`cannot start node: ${(e as Error).message}`);
      }
      const gasPrices = minimumGasPrices(args["minimum-gas-prices"], def.name, args.home, config);
      const halt = haltHeight(args["halt-height"], def.name);
      const logger = loggerFromArgs(args);
      const engine = args["consensus-engine"] ?? config.node.consensusEngine;
      let node: ChainNode | CometNode;
      // The RPC's thread boots while the store opens; it listens once the node is up (or ends if rpc.laddr is off).
      // Under CometBFT the RPC is CometBFT's: no thread.
      const rpcThread = engine === "embedded" ? spawnRpcThread() : undefined;
      try {
        const options = {
          home: args.home,
          definition: def,
          haltHeight: halt,
          minimumGasPrices: gasPrices,
          skipUpgradeHeights: skipHeights(args["unsafe-skip-upgrades"]),
          config,
        };
        if (engine === "cometbft") {
          if ((args.transport ?? "socket") !== "socket")
            throw new Error(`--transport ${args.transport}: only the socket transport is served`);
          node = await CometNode.open(
            {
              ...options,
              abciAddress: args.address,
              cometbft: args["with-comet"] === false ? null : cometbftBinary(args.cometbft, def.name),
              cometbftFlags: cometbftFlags(config, overrides.node),
            },
            { logger },
          );
        } else node = await ChainNode.open(options, { logger });
      } catch (e) {
        await rpcThread?.terminate();
        throw new CliError(`cannot start node: ${(e as Error).message}`);
      }
      logger.info("minimum gas prices", { prices: gasPrices });
      let servers: NodeServer[];
      try {
        servers = await startNodeServers(node, { logger, rpcThread });
      } catch (e) {
        await node.close();
        throw new CliError(`cannot start node: ${(e as Error).message}`);
      }
      const running: RunningNode = node;
      let signalled = false;
      // Set while the node, closed after an upgrade halt, waits for its supervisor's signal.
      let haltWaitEnds: (() => void) | undefined;
      const onSignal = (sig: NodeJS.Signals) => {
        if (signalled) return;
        signalled = true;
        if (haltWaitEnds) return haltWaitEnds();
        logger.info("caught signal, stopping after the current block", { signal: sig });
        running.requestStop();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      let reason: StopReason;
      try {
        reason = await running.run();
      } catch (e) {
        reason = { kind: "error", error: e as Error };
      }
      await closeNodeServers(servers);
      await running.close();
      if (
        reason.kind === "error" &&
        reason.error instanceof ModuleHaltError &&
        reason.error.forSupervisor &&
        !signalled &&
        waitsForSupervisorAfterHalt()
      ) {
        // The database and ports are free by now, so the supervisor's `status` reads the halt height from the home.
        logger.info("upgrade halt: waiting for the supervisor to stop this process");
        // Signal handlers alone do not keep Node's event loop alive.
        const keepAlive = setInterval(() => {}, 2 ** 30);
        await new Promise<void>((resolve) => {
          haltWaitEnds = resolve;
        });
        clearInterval(keepAlive);
      }
      if (reason.kind === "error" && reason.error instanceof ModuleHaltError)
        throw new CliError(reason.error.message, reason.error.exitCode);
      if (reason.kind === "error") throw new CliError(`node stopped on an error: ${reason.error.message}`);
      if (reason.kind === "halt") logger.info("node halted", { reason: reason.reason });
      logger.info("node stopped", { height: running.store.latestHeight });
      // A stop on a signal ends the process here. A terminal signals the whole group and visor passes the signal on
      // too, so a copy can arrive late; Node's natural exit restores the default action (death by that signal)
      // before the process is gone, and the node would end killed after a clean stop. process.exit keeps ours.
      if (signalled) process.exit(0);
    },
  };
}
