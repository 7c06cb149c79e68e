import { redactUrls } from "./url-redaction.js";

/** Why visor refuses or stops; every expected failure carries one, and the CLI prints it as one line. */
export type VisorErrorCode =
  | "CONFIG"
  | "LAYOUT"
  | "UPGRADE_INFO"
  | "PLAN_INFO"
  | "CHECKSUM"
  | "DOWNLOAD"
  | "ARCHIVE"
  | "BINARY_MISSING"
  | "PRE_UPGRADE"
  | "BACKUP"
  | "SIGNATURE"
  | "NODE_API"
  | "HOME_HEIGHT";

/**
 * A message names URLs with their credentials redacted: it ends up in logs, on the console and in
 * visor-status.json.
 */
export class VisorError extends Error {
  constructor(
    readonly code: VisorErrorCode,
    message: string,
  ) {
    super(redactUrls(message));
    this.name = "VisorError";
  }
}
