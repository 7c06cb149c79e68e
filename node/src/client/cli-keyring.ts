import type { HomeArgs } from "../app/home-args.js";
import { CliError } from "./cli-error.js";
import type { PassphrasePrompt } from "./keyring/key-vault.js";
import type { Keyring } from "./keyring/keyring.js";
import { KeyringError } from "./keyring/keyring-error.js";
import { openKeyring } from "./keyring/open-keyring.js";
import { TerminalInput, type TerminalInputStreams } from "./keyring/terminal-input.js";
import { clientDefaults } from "./query-options.js";

/** The flags that choose a command's keyring. */
export interface KeyringArgs extends HomeArgs {
  "keyring-backend"?: string;
  "keyring-dir"?: string;
}

export const keyringOptions = {
  "keyring-backend": {
    type: "string",
    describe: "keyring backend: file or test (default: client.toml's keyring-backend, else file)",
  },
  "keyring-dir": { type: "string", describe: "folder holding the keyring (default: --home)" },
} as const;

/**
 * Runs `fn` with the keyring the flags name, else the one client.toml names, else the encrypted `file` one.
 * Passphrases are asked on a terminal (without echo) or read line by line from piped stdin, as Cosmos does;
 * keyring failures become one-line CLI errors.
 */
export async function withCliKeyring<T>(
  args: KeyringArgs,
  prefix: string,
  fn: (ring: Keyring, input: TerminalInput) => Promise<T>,
  streams: TerminalInputStreams = { input: process.stdin, output: process.stderr },
): Promise<T> {
  const input = new TerminalInput(streams);
  try {
    const backend = args["keyring-backend"] ?? clientDefaults(args.home).keyringBackend;
    const ring = openKeyring({
      backend,
      home: args["keyring-dir"] ?? args.home,
      prefix,
      passphrase: passphrasePrompt(input),
    });
    return await fn(ring, input);
  } catch (e) {
    if (e instanceof KeyringError) throw new CliError(e.message);
    throw e;
  } finally {
    input.close();
  }
}

/** Cosmos asks twice when the keyring has no passphrase yet. */
function passphrasePrompt(input: TerminalInput): PassphrasePrompt {
  return async ({ isNew }) => {
    const passphrase = await input.readSecret("Enter keyring passphrase:", "keyring passphrase");
    if (isNew) {
      const again = await input.readSecret("Re-enter keyring passphrase:", "keyring passphrase confirmation");
      if (again !== passphrase) throw new CliError("passphrases do not match");
    }
    return passphrase;
  };
}
