import type { CommandModule } from "yargs";
import type { ChainProgram } from "./chain-program.js";
import type { GlobalArgs } from "./global-options.js";

/**
 * One top-level `chaind` command: what `--help` lists, and how to load the command itself, which happens only
 * when it is the one run (test/node/cli/chaind-commands.test.ts checks that each entry matches its module).
 */
export interface CommandEntry {
  command: string;
  describe: string;
  aliases?: string[];
  load(program: ChainProgram): Promise<CommandModule<GlobalArgs, never>>;
}

type Loaded = CommandModule<GlobalArgs, never>;

/** Every top-level command, in the order `--help` lists them. A new command adds one entry. */
export const CHAIND_COMMANDS: CommandEntry[] = [
  {
    command: "init <moniker>",
    describe: "Initialize the node's configuration files, validator key and genesis",
    load: async (p) => (await import("./init.js")).initCommand(await p.app()) as Loaded,
  },
  {
    command: "start",
    describe: "Run the full node",
    load: async (p) => (await import("./start.js")).startCommand(await p.app()) as Loaded,
  },
  {
    command: "keys",
    describe: "Manage your application's keys",
    load: async () => (await import("./keys.js")).keysCommand as Loaded,
  },
  {
    command: "genesis",
    describe: "Application's genesis-related subcommands",
    load: async (p) => (await import("./genesis.js")).genesisCommand(await p.app()) as Loaded,
  },
  {
    command: "testnet",
    describe:
      "Create a ready-to-start single-validator home with funded test keys, or with --validators N the homes of an N-validator network on CometBFT",
    load: async (p) => (await import("./testnet.js")).testnetCommand(await p.app()) as Loaded,
  },
  {
    command: "in-place-testnet <new-chain-id> <operator-address>",
    describe:
      "Turn this home's chain into a one-validator testnet of a new chain id (this node's key, the operator's power), and start it",
    load: async (p) => (await import("./in-place-testnet.js")).inPlaceTestnetCommand(await p.app()) as Loaded,
  },
  {
    command: "export",
    describe: "Export state to JSON as a genesis document (the node must be stopped)",
    load: async (p) => (await import("./export.js")).exportCommand(await p.app()) as Loaded,
  },
  {
    command: "version",
    describe: "Print the application binary version information",
    load: async (p) => (await import("./version.js")).versionCommand(p) as Loaded,
  },
  {
    command: "tx",
    describe: "Transactions subcommands",
    load: async (p) => (await import("./tx.js")).txCommand(await p.app()) as Loaded,
  },
  {
    command: "query",
    aliases: ["q"],
    describe: "Querying subcommands",
    load: async (p) => (await import("./query.js")).queryCommand(await p.app()) as Loaded,
  },
  {
    command: "status",
    describe: "Query remote node for status (a stopped node's home answers from its block store)",
    load: async () => (await import("./status.js")).statusCommand as Loaded,
  },
  {
    command: "rollback",
    describe:
      "Roll back the app state by one height; the next start executes the last block again (--hard: removes it)",
    load: async (p) => (await import("./rollback.js")).rollbackCommand(p.name) as Loaded,
  },
  {
    command: "snapshots",
    describe: "Manage local snapshots",
    load: async () => (await import("./snapshots.js")).snapshotsCommand as Loaded,
  },
  {
    command: "pre-upgrade",
    describe: "Check the home before this binary takes over an upgrade (exit 0 ok, 30 failed, 31 retry)",
    load: async (p) => (await import("./pre-upgrade.js")).preUpgradeCommand(p) as Loaded,
  },
  {
    command: "comet",
    aliases: ["tendermint", "cometbft"],
    describe: "CometBFT subcommands",
    load: async () => (await import("./comet.js")).cometCommand as Loaded,
  },
  {
    command: "debug",
    describe: "Tool for helping with debugging your application",
    load: async () => (await import("./debug.js")).debugCommand as Loaded,
  },
  {
    command: "config",
    describe: "Get and set client.toml, app.toml and config.toml values",
    load: async () => (await import("./config.js")).configCommand as Loaded,
  },
  {
    command: "completion <shell>",
    describe: "Generate the autocompletion script for the specified shell",
    load: async (p) => (await import("./completion.js")).completionCommand(p.name) as Loaded,
  },
];
