import { parseGoDuration } from "@chaind/core/go-duration";
import yargs from "yargs";
import { hideBin } from "yargs/helpers";
import {
  configuredSettings,
  type LoadOptions,
  loadVisorConfig,
  type VisorConfig,
} from "../config/visor-config.js";
import { redactUrls } from "../errors/url-redaction.js";
import { exitStatusOf, VisorError } from "../errors/visor-error.js";
import { takeCosmovisorConfig } from "./cosmovisor-config-flag.js";
import { withCompletion } from "./visor-completion.js";

// Each command's module is imported when it runs: `visor status` or `init` need not load the downloader, the
// gRPC client and the runner, which tripled a short command's start-up.

/** The settings by `read`, with what it ignored (unknown keys in the file) logged as warnings. */
async function settings(
  read: (env: NodeJS.ProcessEnv, opts: LoadOptions) => VisorConfig,
  opts: LoadOptions,
): Promise<VisorConfig> {
  const ignored: string[] = [];
  const config = read(process.env, { ...opts, warn: (m) => ignored.push(m) });
  if (ignored.length) {
    const logger = (await import("../reporting/visor-logger.js")).visorLogger(config);
    for (const m of ignored) logger.warn(m);
  }
  return config;
}

function wholeNumberFlag(name: string, v: number): number {
  if (!Number.isSafeInteger(v) || v < 1)
    throw new VisorError("CONFIG", `invalid --${name} ${v}: a whole number from 1`);
  return v;
}

function durationFlag(name: string, v: string): number {
  let ms: number;
  try {
    ms = parseGoDuration(v);
  } catch (e) {
    throw new VisorError("CONFIG", `invalid --${name} ${JSON.stringify(v)}: ${(e as Error).message}`);
  }
  if (ms <= 0) throw new VisorError("CONFIG", `invalid --${name} ${JSON.stringify(v)}: must be positive`);
  return ms;
}

async function main(args: string[]): Promise<number> {
  const { configFile, argv } = takeCosmovisorConfig(args);
  if (argv[0] === "run") {
    const config = await settings(loadVisorConfig, { configFile, requireLayout: true });
    return (await import("./run-command.js")).runCommand(config, argv.slice(1));
  }
  const cfg = (requireLayout = true) => settings(loadVisorConfig, { configFile, requireLayout });
  await withCompletion(yargs(argv))
    .scriptName("visor")
    .option("cosmovisor-config", {
      alias: "c",
      type: "string",
      description: "cosmovisor's config.toml (also accepted after run; never passed to the daemon)",
    })
    .command(
      "init <path>",
      "Install the genesis binary and the current link, and write cosmovisor/config.toml",
      (y) => y.positional("path", { type: "string", demandOption: true }),
      async (a) =>
        (await import("./init-command.js")).initCommand(
          await settings(configuredSettings, { configFile }),
          a.path,
        ),
    )
    .command(
      "run",
      "Run the daemon under visor: visor run <daemon args...>",
      () => {},
      () => {},
    )
    .command(
      "version",
      "Print visor's version and the daemon's",
      (y) =>
        y
          .option("output", { alias: "o", choices: ["text", "json"], default: "text" })
          .option("cosmovisor-only", { type: "boolean", default: false }),
      async (a) =>
        (await import("./version-command.js")).versionCommand(cfg, {
          json: a.output === "json",
          visorOnly: a["cosmovisor-only"],
        }),
    )
    .command(
      "config",
      "Print the effective settings as cosmovisor does; --output toml: as config.toml",
      (y) => y.option("output", { alias: "o", choices: ["text", "toml"], default: "text" }),
      async (a) =>
        (await import("./config-command.js")).configCommand(
          a.output === "toml" ? await settings(configuredSettings, { configFile }) : await cfg(false),
          a.output === "toml" ? "toml" : "text",
        ),
    )
    .command(
      "add-upgrade <name> <path>",
      "Install a binary for an upgrade (optionally at a height)",
      (y) =>
        y
          .positional("name", { type: "string", demandOption: true })
          .positional("path", { type: "string", demandOption: true })
          .option("force", { type: "boolean", default: false })
          .option("upgrade-height", { type: "number" }),
      async (a) =>
        (await import("./add-upgrade-command.js")).addUpgradeCommand(await cfg(), a.name, a.path, {
          force: a.force,
          height: a["upgrade-height"],
        }),
    )
    .command(
      "add-batch-upgrade",
      "Install binaries for several upgrades at heights",
      (y) => y.option("upgrade-file", { type: "string" }).option("upgrade-list", { type: "string" }),
      async (a) =>
        (await import("./add-upgrade-command.js")).addBatchUpgradeCommand(await cfg(), {
          file: a["upgrade-file"],
          list: a["upgrade-list"],
        }),
    )
    .command(
      "prepare-upgrade",
      "Download the binary of the node's scheduled plan now",
      () => {},
      async () => (await import("./prepare-upgrade-command.js")).prepareUpgradeCommand(await cfg()),
    )
    .command(
      "show-upgrade-info",
      "Print data/upgrade-info.json",
      () => {},
      async () => (await import("./show-upgrade-info-command.js")).showUpgradeInfoCommand(await cfg()),
    )
    .command(
      "status",
      "Print what visor runs, the next upgrade and whether it is ready, the batch queue and the last upgrade",
      (y) => y.option("output", { alias: "o", choices: ["text", "json"], default: "text" }),
      async (a) =>
        (await import("./status-command.js")).statusCommand(
          await cfg(),
          a.output === "json" ? "json" : "text",
        ),
    )
    .command(
      "rehearse [plan]",
      "Run the scheduled upgrade (or the named one) on a private copy of this home while the node runs, and report",
      (y) =>
        y
          .positional("plan", { type: "string", describe: "a plan other than the one the chain schedules" })
          .option("output", { alias: "o", choices: ["text", "json"], default: "text" })
          .option("blocks", {
            type: "number",
            default: 3,
            describe: "blocks the new binary must commit, the upgrade block among them",
          })
          .option("timeout", {
            type: "string",
            default: "1h",
            describe: "how long the copy may take from its start to those blocks (Go duration)",
          })
          .option("keep-copy", { type: "boolean", default: false, describe: "leave the copy for a look" }),
      async (a) =>
        (await import("./rehearse-command.js")).rehearseCommand(await cfg(), {
          plan: a.plan,
          blocks: wholeNumberFlag("blocks", a.blocks),
          timeoutMs: durationFlag("timeout", a.timeout),
          keepCopy: a["keep-copy"],
          form: a.output === "json" ? "json" : "text",
        }),
    )
    .command(
      "rollback",
      "Undo the last upgrade while its new binary has committed no block: restore the data backup, point current back",
      () => {},
      async () => (await import("./rollback-command.js")).rollbackCommand(await cfg()),
    )
    .demandCommand(1, "a command is required; see --help")
    .strict()
    .help()
    .fail((msg, err) => {
      throw err ?? new VisorError("CONFIG", msg);
    })
    .parseAsync();
  return 0;
}

main(hideBin(process.argv)).then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    const expected = e instanceof VisorError;
    const text = expected ? e.message : `unexpected error: ${(e as Error).stack ?? e}`;
    process.stderr.write(`Error: ${redactUrls(text)}\n`);
    process.exitCode = exitStatusOf(e);
  },
);
