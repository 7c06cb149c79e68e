/** An expected command failure: printed as one line (no stack) with a non-zero exit status. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}
