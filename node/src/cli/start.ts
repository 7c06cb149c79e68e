import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { ChainNode } from "../chain/chain-node.js";
import type { NodeServer } from "../server/node-server.js";
import { closeNodeServers, startNodeServers } from "../server/node-servers.js";
import { CliError } from "./cli-error.js";
import type { GlobalArgs } from "./global-options.js";
import { loggerFromArgs } from "./logger-from-args.js";

interface StartArgs extends GlobalArgs {
  "halt-height"?: number;
}

/** `chaind start`: runs the node until SIGINT/SIGTERM (after the block in progress) or a halt. */
export function startCommand(def: AppDefinition): CommandModule<GlobalArgs, StartArgs> {
  return {
    command: "start",
    describe: "Run the full node",
    builder: (y) =>
      y.option("halt-height", {
        type: "number",
        describe: "stop after committing this height (overrides app.toml)",
      }) as never,
    handler: async (args) => {
      const logger = loggerFromArgs(args);
      let node: ChainNode;
      try {
        node = await ChainNode.open(
          { home: args.home, definition: def, haltHeight: args["halt-height"] },
          { logger },
        );
      } catch (e) {
        throw new CliError(`cannot start node: ${(e as Error).message}`);
      }
      let servers: NodeServer[];
      try {
        servers = await startNodeServers(node, { logger });
      } catch (e) {
        await node.close();
        throw new CliError(`cannot start node: ${(e as Error).message}`);
      }
      let signalled = false;
      const onSignal = (sig: NodeJS.Signals) => {
        if (signalled) return;
        signalled = true;
        logger.info("caught signal, stopping after the current block", { signal: sig });
        void node.producer.stop();
      };
      process.on("SIGINT", onSignal);
      process.on("SIGTERM", onSignal);
      const reason = await node.run();
      await closeNodeServers(servers);
      await node.close();
      process.off("SIGINT", onSignal);
      process.off("SIGTERM", onSignal);
      if (reason.kind === "error") throw new CliError(`node stopped on an error: ${reason.error.message}`);
      if (reason.kind === "halt") logger.info("node halted", { reason: reason.reason });
      logger.info("node stopped", { height: node.store.latestHeight });
    },
  };
}
