import { join } from "node:path";
import { DirectoryKeyring } from "./directory-keyring.js";
import { passphraseCodec, plainCodec } from "./key-file-codec.js";
import { type Keyring, KeyringError } from "./keyring.js";

/**
 * `test` keeps keys unencrypted under `<home>/keyring-test` (local chains and tests only); `file` seals each
 * key with a passphrase under `<home>/keyring-file`.
 */
export function openKeyring(opts: { backend: string; home: string; prefix: string; passphrase?: string }): Keyring {
  switch (opts.backend) {
    case "test":
      return new DirectoryKeyring(join(opts.home, "keyring-test"), opts.prefix, plainCodec);
    case "file":
      if (!opts.passphrase) throw new KeyringError("WRONG_PASSWORD", "the file keyring needs a passphrase");
      return new DirectoryKeyring(join(opts.home, "keyring-file"), opts.prefix, passphraseCodec(opts.passphrase));
    default:
      throw new KeyringError("BAD_BACKEND", `unsupported keyring backend ${JSON.stringify(opts.backend)}: use test or file`);
  }
}
