import type { Logger } from "@chaind/core/logger";
import { createWinstonLogger, parseLogLevel } from "@chaind/core/winston-logger";
import { CliError } from "../client/cli-error.js";
import type { GlobalArgs } from "./global-options.js";

export function loggerFromArgs(args: Pick<GlobalArgs, "log_level" | "log_format">): Logger {
  let levels: ReturnType<typeof parseLogLevel>;
  try {
    levels = parseLogLevel(args.log_level);
  } catch (e) {
    throw new CliError((e as Error).message);
  }
  return createWinstonLogger({ ...levels, format: args.log_format, colors: false });
}
