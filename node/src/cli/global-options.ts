import { homedir } from "node:os";
import { join } from "node:path";
import type { HomeArgs } from "../app/home-args.js";

/** Options every `chaind` command accepts. */
export interface GlobalArgs extends HomeArgs {
  log_level: string;
  log_format: "plain" | "json";
}

/**
 * `--home` when not given: CHAIND_HOME (the app's variable, as Cosmos binaries read SIMD_HOME), else DAEMON_HOME
 * (a supervisor's node home: cosmovisor runs `<binary> pre-upgrade` with no --home), else ~/.chaind.
 */
export const DEFAULT_HOME = process.env.CHAIND_HOME || process.env.DAEMON_HOME || join(homedir(), ".chaind");

export const globalOptions = {
  home: { type: "string", default: DEFAULT_HOME, describe: "directory for config and data" },
  log_level: {
    type: "string",
    default: "info",
    describe: "log level: error|warn|info|debug, or per module (store:debug,*:info)",
  },
  log_format: { type: "string", choices: ["plain", "json"], default: "plain", describe: "log output format" },
} as const;
