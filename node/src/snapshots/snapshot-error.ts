/** A snapshot that is missing, damaged or does not fit the home: an operator's problem, told in one line. */
export class SnapshotError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SnapshotError";
  }
}
