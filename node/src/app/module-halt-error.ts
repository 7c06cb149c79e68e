/**
 * Thrown by a module's block hook to stop the node on purpose before the block executes (the upgrade module at
 * a plan's height); `exitCode` is the exit status of `chaind start`, so a supervisor or script can tell why.
 */
export class ModuleHaltError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    /** A halt a supervisor resolves by installing another binary (upgrade-info.json written for it). */
    readonly forSupervisor = false,
  ) {
    super(message);
    this.name = "ModuleHaltError";
  }
}
