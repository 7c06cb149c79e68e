import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import {
  checkPassphrase,
  decryptSecret,
  type EncryptedSecret,
  encryptSecret,
  hashPassphrase,
  MIN_PASSPHRASE_LENGTH,
  type PassphraseHash,
} from "./key-encryption.js";
import { KeyringError } from "./keyring-error.js";

/** The private part of a key file, as a backend stores it. */
export interface SealedKey {
  /** hex, `test` backend only */
  privkey?: string;
  /** `file` backend only */
  crypto?: EncryptedSecret;
}

/** How a backend keeps private keys at rest. */
export interface KeyVault {
  seal(priv: Uint8Array, pubKey: Uint8Array): Promise<SealedKey>;
  open(sealed: SealedKey, pubKey: Uint8Array): Promise<Uint8Array>;
  /** Proves the caller may change or use keys (the `file` backend's passphrase); a no-op for `test`. */
  unlock(): Promise<void>;
}

/** `test` backend: private keys in clear, for tests and throwaway local chains. */
export const plainVault: KeyVault = {
  seal: async (priv) => ({ privkey: Buffer.from(priv).toString("hex") }),
  open: async (sealed) => {
    if (typeof sealed.privkey !== "string" || !/^[0-9a-f]{64}$/.test(sealed.privkey)) {
      throw new KeyringError("CORRUPT_KEY", "key file holds no valid private key");
    }
    return new Uint8Array(Buffer.from(sealed.privkey, "hex"));
  },
  unlock: async () => {},
};

/**
 * Asked for the keyring passphrase when a key is written, used or deleted; `isNew` means none is set yet,
 * so a prompt should ask twice.
 */
export type PassphrasePrompt = (req: { isNew: boolean }) => Promise<string>;

const PROMPT_ATTEMPTS = 3;

/**
 * `file` backend: each key encrypted with the keyring passphrase. The first unlock of an empty keyring sets
 * the passphrase (its scrypt hash goes to `keyhash`); later unlocks check against it, so every key of one
 * keyring shares one passphrase.
 */
export class PassphraseVault implements KeyVault {
  private passphrase: string | null = null;

  constructor(private readonly opts: { dir: string; passphrase?: string | PassphrasePrompt }) {}

  async unlock(): Promise<void> {
    if (this.passphrase !== null) return;
    const source = this.opts.passphrase;
    if (source === undefined) {
      throw new KeyringError("PASSPHRASE_REQUIRED", "the file keyring backend needs a passphrase");
    }
    const hashPath = join(this.opts.dir, "keyhash");
    if (!existsSync(hashPath)) {
      const p = typeof source === "string" ? source : await source({ isNew: true });
      if (p.length < MIN_PASSPHRASE_LENGTH) {
        throw new KeyringError(
          "WEAK_PASSPHRASE",
          `passphrase must be at least ${MIN_PASSPHRASE_LENGTH} characters`,
        );
      }
      mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
      writeFileAtomic(hashPath, `${JSON.stringify(await hashPassphrase(p), null, 2)}\n`, {
        mode: 0o600,
        durable: true,
      });
      this.passphrase = p;
      return;
    }
    let stored: PassphraseHash;
    try {
      stored = JSON.parse(readFileSync(hashPath, "utf8")) as PassphraseHash;
    } catch (e) {
      throw new KeyringError("CORRUPT_KEY", `cannot read ${hashPath}: ${(e as Error).message}`);
    }
    const attempts = typeof source === "string" ? 1 : PROMPT_ATTEMPTS;
    for (let i = 0; i < attempts; i++) {
      let p: string;
      try {
        p = typeof source === "string" ? source : await source({ isNew: false });
      } catch (e) {
        // Input that ends after a wrong answer (piped stdin) is still a wrong passphrase.
        if (i > 0) break;
        throw e;
      }
      if (await checkPassphrase(p, stored)) {
        this.passphrase = p;
        return;
      }
    }
    throw new KeyringError("WRONG_PASSPHRASE", "invalid account password");
  }

  async seal(priv: Uint8Array, pubKey: Uint8Array): Promise<SealedKey> {
    await this.unlock();
    return { crypto: await encryptSecret(this.passphrase!, priv, pubKey) };
  }

  async open(sealed: SealedKey, pubKey: Uint8Array): Promise<Uint8Array> {
    await this.unlock();
    if (!sealed.crypto) throw new KeyringError("CORRUPT_KEY", "key file holds no encrypted private key");
    return decryptSecret(this.passphrase!, sealed.crypto, pubKey);
  }
}
