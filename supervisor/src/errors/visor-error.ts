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
  | "HOME_HEIGHT"
  | "HOME_IN_USE"
  | "ROLLBACK"
  | "ROLLED_BACK"
  | "REHEARSAL"
  | "REHEARSAL_FAILED";

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

/**
 * visor's exit status after it rolled an upgrade back, or refused to start because an upgrade was rolled back:
 * apart from 1 (visor's errors) and what daemons exit with (Cosmos 1, Go panics 2, chaind's halt 3), so a
 * service manager can stop restarting it (systemd: RestartPreventExitStatus=70).
 */
const ROLLED_BACK_EXIT_STATUS = 70;

/**
 * `visor rehearse` when it could not rehearse (no plan, too little disk, a copy it could not make): apart from 1,
 * which says that the rehearsed upgrade failed and the real one would.
 */
const NOT_REHEARSED_EXIT_STATUS = 2;

/**
 * The exit status for a failure: {@link ROLLED_BACK_EXIT_STATUS} for a rollback, {@link NOT_REHEARSED_EXIT_STATUS}
 * for a rehearsal that could not run, 1 for everything else.
 */
export function exitStatusOf(e: unknown): number {
  if (!(e instanceof VisorError)) return 1;
  return e.code === "ROLLED_BACK"
    ? ROLLED_BACK_EXIT_STATUS
    : e.code === "REHEARSAL"
      ? NOT_REHEARSED_EXIT_STATUS
      : 1;
}
