import { KeyringError } from "./keyring-error.js";

const MAX_NAME_LENGTH = 100;

/** Names become file names, so anything that could escape the keyring folder is refused. */
export function checkKeyName(name: string): void {
  const bad = (why: string) =>
    new KeyringError("INVALID_NAME", `invalid key name ${JSON.stringify(name)}: ${why}`);
  if (typeof name !== "string" || name.length === 0) throw bad("must not be empty");
  if (name.length > MAX_NAME_LENGTH) throw bad(`longer than ${MAX_NAME_LENGTH} characters`);
  if (name === "." || name === "..") throw bad("must not be . or ..");
  if (/[/\\]/.test(name)) throw bad("must not contain / or \\");
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what we refuse
  if (/[\u0000-\u001f\u007f]/.test(name)) throw bad("must not contain control characters");
  if (name.trim() !== name) throw bad("must not start or end with whitespace");
}
