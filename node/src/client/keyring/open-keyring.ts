import { join } from "node:path";
import { DirKeyring } from "./dir-keyring.js";
import { type PassphrasePrompt, PassphraseVault, plainVault } from "./key-vault.js";
import { KEYRING_BACKENDS, type Keyring, type KeyringBackend } from "./keyring.js";
import { KeyringError } from "./keyring-error.js";

export interface OpenKeyringOptions {
  /** "test" or "file"; anything else (Cosmos's "os", "kwallet", ...) is UNSUPPORTED_BACKEND */
  backend: string;
  /** the keyring root (`--keyring-dir`, by default the node home); keys live in `<home>/keyring-<backend>/` */
  home: string;
  /** bech32 account prefix of addresses the keyring prints and accepts */
  prefix: string;
  /** `file` backend only: the passphrase, or a prompt asked only when a key is written, used or deleted */
  passphrase?: string | PassphrasePrompt;
}

export function openKeyring(opts: OpenKeyringOptions): Keyring {
  if (!KEYRING_BACKENDS.includes(opts.backend as KeyringBackend)) {
    throw new KeyringError(
      "UNSUPPORTED_BACKEND",
      `keyring backend "${opts.backend}" is not supported; use one of: ${KEYRING_BACKENDS.join(", ")}`,
    );
  }
  const backend = opts.backend as KeyringBackend;
  const dir = join(opts.home, `keyring-${backend}`);
  const vault = backend === "test" ? plainVault : new PassphraseVault({ dir, passphrase: opts.passphrase });
  return new DirKeyring({ backend, dir, prefix: opts.prefix }, { vault });
}
