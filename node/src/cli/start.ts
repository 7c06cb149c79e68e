import type { CommandModule } from "yargs";
import type { AppDefinition } from "../chain/app-definition.js";
import { ChainNode } from "../chain/chain-node.js";
import { UPGRADE_HALT_EXIT_CODE, UpgradeHaltError } from "../modules/upgrade/upgrade-halt.js";
import type { NodeServer } from "../server/node-server.js";
import { closeNodeServers, startNodeServers } from "../server/node-servers.js";
import { CliError } from "./cli-error.js";
import type { GlobalArgs } from "./global-options.js";
import { loggerFromArgs } from "./logger-from-args.js";

function skipHeights(raw: number[] | undefined): number[] {
  for (const h of raw ?? [])
    if (!Number.isSafeInteger(h) || h <= 0)
      throw new CliError(`--unsafe-skip-upgrades: heights must be positive integers, got ${h}`);
  return raw ?? [];
}

interface StartArgs extends GlobalArgs {
  "halt-height"?: number;
  "unsafe-skip-upgrades"?: number[];
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
        .option("unsafe-skip-upgrades", {
          type: "number",
          array: true,
          describe: "plan heights whose upgrade to skip (the plan is dropped, the chain goes on)",
        }) as never,
    handler: async (args) => {
      const logger = loggerFromArgs(args);
      let node: ChainNode;
      try {
        node = await ChainNode.open(
          {
            home: args.home,
            definition: def,
            haltHeight: args["halt-height"],
            skipUpgradeHeights: skipHeights(args["unsafe-skip-upgrades"]),
          },
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
      if (reason.kind === "error" && reason.error instanceof UpgradeHaltError) {
        const code = reason.error.code === "UPGRADE_NEEDED" ? UPGRADE_HALT_EXIT_CODE : 1;
        throw new CliError(reason.error.message, code);
      }
      if (reason.kind === "error") throw new CliError(`node stopped on an error: ${reason.error.message}`);
      if (reason.kind === "halt") logger.info("node halted", { reason: reason.reason });
      logger.info("node stopped", { height: node.store.latestHeight });
    },
  };
}
