import { createCipheriv, createDecipheriv, randomBytes, scryptSync } from "node:crypto";
import { KeyringError } from "./keyring.js";

/** How a key file holds its private key: in the clear (`test`) or sealed with a passphrase (`file`). */
export interface KeyFileCodec {
  seal(priv: Uint8Array): Record<string, string | number>;
  open(sealed: Record<string, string | number>): Uint8Array;
}

export const plainCodec: KeyFileCodec = {
  seal: (priv) => ({ scheme: "plain", priv_key: Buffer.from(priv).toString("hex") }),
  open: (s) => new Uint8Array(Buffer.from(String(s.priv_key), "hex")),
};

/** scrypt (N=2^15, r=8, p=1) derives a 32-byte key; AES-256-GCM seals the private key. Parameters live in the file. */
export function passphraseCodec(passphrase: string): KeyFileCodec {
  const derive = (salt: Buffer, n: number, r: number, p: number) => scryptSync(passphrase, salt, 32, { N: n, r, p, maxmem: 256 * n * r });
  return {
    seal(priv) {
      const salt = randomBytes(16);
      const iv = randomBytes(12);
      const [n, r, p] = [2 ** 15, 8, 1];
      const cipher = createCipheriv("aes-256-gcm", derive(salt, n, r, p), iv);
      const ct = Buffer.concat([cipher.update(priv), cipher.final()]);
      return {
        scheme: "scrypt-aes-256-gcm",
        n,
        r,
        p,
        salt: salt.toString("hex"),
        iv: iv.toString("hex"),
        ciphertext: ct.toString("hex"),
        tag: cipher.getAuthTag().toString("hex"),
      };
    },
    open(s) {
      const key = derive(Buffer.from(String(s.salt), "hex"), Number(s.n), Number(s.r), Number(s.p));
      const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(String(s.iv), "hex"));
      decipher.setAuthTag(Buffer.from(String(s.tag), "hex"));
      try {
        return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(String(s.ciphertext), "hex")), decipher.final()]));
      } catch {
        throw new KeyringError("WRONG_PASSWORD", "invalid account password");
      }
    },
  };
}
