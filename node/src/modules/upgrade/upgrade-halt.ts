import { ModuleHaltError } from "../../app/module-halt-error.js";

/** Why the upgrade module stops the node; each has its own exit code for `chaind start`. */
export type UpgradeHaltCode = "UPGRADE_NEEDED" | "BINARY_TOO_EARLY" | "DOWNGRADE";

/**
 * The exit status of `chaind start` when it halts for an upgrade (the plan written to upgrade-info.json).
 * A supervisor treats any non-zero exit as "check upgrade-info.json"; ours is distinct so scripts can tell.
 */
const UPGRADE_HALT_EXIT_CODE = 3;

/** Thrown by PreBlock to stop block production before the block executes; nothing of that block commits. */
export class UpgradeHaltError extends ModuleHaltError {
  constructor(
    readonly code: UpgradeHaltCode,
    message: string,
  ) {
    super(message, code === "UPGRADE_NEEDED" ? UPGRADE_HALT_EXIT_CODE : 1, code === "UPGRADE_NEEDED");
    this.name = "UpgradeHaltError";
  }
}
