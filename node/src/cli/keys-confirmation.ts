import { CliError } from "../client/cli-error.js";
import type { TerminalInput } from "../client/keyring/terminal-input.js";

/** Cosmos's confirmation answers: y or yes, any case; anything else is no. */
export function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim());
}

/**
 * Asks `question [y/N]` on a terminal. Without one, a key-changing command refuses rather than take a piped
 * line as consent: scripts pass --yes.
 */
export async function confirmKeyChange(
  input: TerminalInput,
  question: string,
  refusal: string,
): Promise<boolean> {
  if (!input.isTTY) throw new CliError(`${refusal}: stdin is not a terminal; pass --yes`);
  return isYes(await input.readLine(`${question} [y/N]: `, "confirmation"));
}
