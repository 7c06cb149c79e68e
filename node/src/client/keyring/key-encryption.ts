/**
 * Passphrase encryption of the `file` keyring backend, with node:crypto only.
 *
 * An encrypted secret (the `crypto` field of a key file):
 *   { "cipher": "aes-256-gcm", "ciphertext": hex, "iv": hex (12 bytes), "tag": hex (16 bytes),
 *     "kdf": "scrypt", "kdfparams": { "n": 32768, "r": 8, "p": 1, "dklen": 32, "salt": hex (16 bytes) } }
 * The AES key is scrypt(passphrase, salt, n, r, p, dklen); the key's public key is the GCM additional data,
 * so a ciphertext moved to another key's file fails to open.
 *
 * The passphrase check file (`keyhash`):
 *   { "version": 1, "kdf": "scrypt", "kdfparams": {...as above}, "hash": hex (dklen bytes) }
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { KeyringError } from "./keyring-error.js";
import { scryptMaxmem, scryptOutOfBounds } from "./scrypt-bounds.js";

export interface ScryptParams {
  n: number;
  r: number;
  p: number;
  dklen: number;
  salt: string;
}

export interface EncryptedSecret {
  cipher: "aes-256-gcm";
  ciphertext: string;
  iv: string;
  tag: string;
  kdf: "scrypt";
  kdfparams: ScryptParams;
}

export interface PassphraseHash {
  version: 1;
  kdf: "scrypt";
  kdfparams: ScryptParams;
  hash: string;
}

/** ~100 ms and 32 MiB per derivation: slow enough against guessing, fast enough for a CLI. */
export const DEFAULT_SCRYPT = { n: 2 ** 15, r: 8, p: 1 } as const;

export const MIN_PASSPHRASE_LENGTH = 8;

function newParams(): ScryptParams {
  return { ...DEFAULT_SCRYPT, dklen: 32, salt: randomBytes(16).toString("hex") };
}

/** Files are input too: bound the cost so a crafted file cannot exhaust memory or time. */
function checkParams(k: ScryptParams): void {
  const ok =
    scryptOutOfBounds(k?.n, k?.r, k?.p) === null &&
    k.dklen === 32 &&
    typeof k.salt === "string" &&
    /^([0-9a-f]{2}){8,64}$/.test(k.salt);
  if (!ok) throw new KeyringError("CORRUPT_KEY", "unsupported or corrupt scrypt parameters");
}

function deriveKey(passphrase: string, k: ScryptParams): Promise<Buffer> {
  checkParams(k);
  return new Promise((resolve, reject) =>
    scrypt(
      passphrase.normalize("NFKC"),
      Buffer.from(k.salt, "hex"),
      k.dklen,
      { N: k.n, r: k.r, p: k.p, maxmem: scryptMaxmem(k.n, k.r) },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

export async function encryptSecret(
  passphrase: string,
  secret: Uint8Array,
  aad: Uint8Array,
): Promise<EncryptedSecret> {
  const kdfparams = newParams();
  const key = await deriveKey(passphrase, kdfparams);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(secret), cipher.final()]);
  return {
    cipher: "aes-256-gcm",
    ciphertext: ciphertext.toString("hex"),
    iv: iv.toString("hex"),
    tag: cipher.getAuthTag().toString("hex"),
    kdf: "scrypt",
    kdfparams,
  };
}

/** A failed GCM tag check means a wrong passphrase (or tampering): "invalid account password". */
export async function decryptSecret(
  passphrase: string,
  enc: EncryptedSecret,
  aad: Uint8Array,
): Promise<Uint8Array> {
  if (enc?.cipher !== "aes-256-gcm" || enc.kdf !== "scrypt") {
    throw new KeyringError("CORRUPT_KEY", `unsupported key encryption ${enc?.cipher}/${enc?.kdf}`);
  }
  const key = await deriveKey(passphrase, enc.kdfparams);
  try {
    const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(enc.iv, "hex"));
    decipher.setAAD(aad);
    decipher.setAuthTag(Buffer.from(enc.tag, "hex"));
    return new Uint8Array(
      Buffer.concat([decipher.update(Buffer.from(enc.ciphertext, "hex")), decipher.final()]),
    );
  } catch {
    throw new KeyringError("WRONG_PASSPHRASE", "invalid account password");
  }
}

export async function hashPassphrase(passphrase: string): Promise<PassphraseHash> {
  const kdfparams = newParams();
  return {
    version: 1,
    kdf: "scrypt",
    kdfparams,
    hash: (await deriveKey(passphrase, kdfparams)).toString("hex"),
  };
}

export async function checkPassphrase(passphrase: string, stored: PassphraseHash): Promise<boolean> {
  if (stored?.kdf !== "scrypt" || typeof stored.hash !== "string") {
    throw new KeyringError("CORRUPT_KEY", "corrupt keyring passphrase file");
  }
  const expected = Buffer.from(stored.hash, "hex");
  const actual = await deriveKey(passphrase, stored.kdfparams);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
