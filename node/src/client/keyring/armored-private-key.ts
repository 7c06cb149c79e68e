/**
 * The passphrase-encrypted, ASCII-armored private key of `keys export` / `keys import`, byte-compatible with
 * Cosmos SDK's (`gaiad keys export` output imports here and ours imports there):
 *
 *   -----BEGIN TENDERMINT PRIVATE KEY-----
 *   kdf: bcrypt
 *   salt: <16 random bytes, upper-case hex>
 *   type: secp256k1
 *
 *   <base64 of: 24-byte nonce || xsalsa20-poly1305 secretbox(amino(privkey))>
 *   =<CRC-24>
 *   -----END TENDERMINT PRIVATE KEY-----
 *
 * The secretbox key is sha256 of the whole bcrypt hash string ("$2a$12$<salt><hash>", cost 12), bcrypt run
 * on the passphrase with the header's salt. The amino form of a secp256k1 key is its 4-byte type prefix,
 * the length 32, then the 32 key bytes. Newer Cosmos versions may write `kdf: scrypt` with
 * `kdfparams: n=..,r=..,p=..,dklen=32` instead; import reads both.
 */
import { createHash, randomBytes, scrypt } from "node:crypto";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import bcrypt from "bcryptjs";
import { ArmorError, decodeArmor, encodeArmor } from "../../crypto/openpgp-armor.js";
import { secp256k1PublicKey } from "../../crypto/secp256k1.js";
import { KeyringError } from "./keyring-error.js";
import { scryptMaxmem, scryptOutOfBounds } from "./scrypt-bounds.js";

const PRIVATE_KEY_BLOCK = "TENDERMINT PRIVATE KEY";
/** Cosmos's `BcryptSecurityParameter`: the cost its export uses and its import assumes (not in the armor). */
const BCRYPT_COST = 12;
const SALT_BYTES = 16;
const NONCE_BYTES = 24;
const SECRETBOX_TAG_BYTES = 16;
/** Amino prefix of "tendermint/PrivKeySecp256k1", then the byte length 32. */
const AMINO_SECP256K1_PRIVKEY = Uint8Array.from([0xe1, 0xb0, 0xf7, 0x9b, 0x20]);

/** The key encrypted with `passphrase` and armored as Cosmos's `keys export` prints it. */
export async function armorPrivateKey(priv: Uint8Array, passphrase: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await bcryptKey(passphrase, salt);
  const nonce = randomBytes(NONCE_BYTES);
  const sealed = xsalsa20poly1305(key, nonce).encrypt(aminoPrivKey(priv));
  const headers = { kdf: "bcrypt", salt: salt.toString("hex").toUpperCase(), type: "secp256k1" };
  return encodeArmor(PRIVATE_KEY_BLOCK, headers, Buffer.concat([nonce, sealed]));
}

/** An armored private key whose armor, headers and length checked out; only the passphrase is unknown. */
export interface ArmoredPrivateKey {
  kdf: { name: "bcrypt" } | { name: "scrypt"; n: number; r: number; p: number };
  salt: Buffer;
  data: Uint8Array;
}

const invalid = (why: string) => new KeyringError("INVALID_ARMOR", `invalid armored private key: ${why}`);

/** Checks an armored text before any passphrase is asked; fails as INVALID_ARMOR, naming the problem. */
export function parseArmoredPrivateKey(text: string): ArmoredPrivateKey {
  let armored: ReturnType<typeof decodeArmor>;
  try {
    armored = decodeArmor(text);
  } catch (e) {
    if (e instanceof ArmorError) throw invalid(e.message);
    throw e;
  }
  const { blockType, headers, data } = armored;
  if (blockType !== PRIVATE_KEY_BLOCK) {
    throw invalid(`armor type is "${blockType}", expected "${PRIVATE_KEY_BLOCK}"`);
  }
  const type = headers.type ?? "secp256k1";
  if (type !== "secp256k1") throw invalid(`key type "${type}" is not supported; only secp256k1 is`);
  if (!/^([0-9A-Fa-f]{2})+$/.test(headers.salt ?? "")) throw invalid("salt header is missing or not hex");
  const salt = Buffer.from(headers.salt, "hex");
  if (data.length <= NONCE_BYTES + SECRETBOX_TAG_BYTES) throw invalid("ciphertext is too short");
  return { kdf: parseKdf(headers, salt), salt, data };
}

function parseKdf(headers: Record<string, string>, salt: Buffer): ArmoredPrivateKey["kdf"] {
  if (headers.kdf === "bcrypt") {
    if (salt.length !== SALT_BYTES) throw invalid(`bcrypt salt must be ${SALT_BYTES} bytes`);
    return { name: "bcrypt" };
  }
  if (headers.kdf === "scrypt") {
    const m = /^n=(\d{1,10}),r=(\d{1,10}),p=(\d{1,10}),dklen=32$/.exec(headers.kdfparams ?? "");
    if (!m) throw invalid(`unsupported scrypt kdfparams "${headers.kdfparams ?? ""}"`);
    const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const why = scryptOutOfBounds(n, r, p);
    if (why) throw invalid(`scrypt kdfparams refused: ${why}`);
    return { name: "scrypt", n, r, p };
  }
  throw invalid(`unrecognized KDF type: ${headers.kdf ?? "(none)"}`);
}

/**
 * The secp256k1 private key, decrypted with `passphrase`. A wrong passphrase fails as WRONG_PASSPHRASE
 * ("invalid account password", as Cosmos says it).
 */
export async function decryptArmoredPrivateKey(
  armored: ArmoredPrivateKey,
  passphrase: string,
): Promise<Uint8Array> {
  const { kdf, salt, data } = armored;
  const key = await deriveKey(kdf, passphrase, salt);
  let plain: Uint8Array;
  try {
    plain = xsalsa20poly1305(key, data.subarray(0, NONCE_BYTES)).decrypt(data.subarray(NONCE_BYTES));
  } catch {
    throw new KeyringError("WRONG_PASSPHRASE", "invalid account password");
  }
  const priv = plain.subarray(AMINO_SECP256K1_PRIVKEY.length);
  const prefixOk = AMINO_SECP256K1_PRIVKEY.every((b, i) => plain[i] === b);
  if (!prefixOk || priv.length !== 32)
    throw invalid("the decrypted key is not an amino secp256k1 private key");
  try {
    secp256k1PublicKey(priv);
  } catch {
    throw invalid("the decrypted key is not a valid secp256k1 private key");
  }
  return new Uint8Array(priv);
}

function aminoPrivKey(priv: Uint8Array): Uint8Array {
  return Buffer.concat([AMINO_SECP256K1_PRIVKEY, priv]);
}

function deriveKey(kdf: ArmoredPrivateKey["kdf"], passphrase: string, salt: Buffer): Promise<Uint8Array> {
  if (kdf.name === "bcrypt") return bcryptKey(passphrase, salt);
  const { n, r, p } = kdf;
  return new Promise((resolve, reject) =>
    scrypt(passphrase, salt, 32, { N: n, r, p, maxmem: scryptMaxmem(n, r) }, (err, key) =>
      err ? reject(err) : resolve(new Uint8Array(key)),
    ),
  );
}

/** sha256 of the full bcrypt hash string: Cosmos's 32-byte secretbox key. */
async function bcryptKey(passphrase: string, salt: Uint8Array): Promise<Uint8Array> {
  const setting = `$2a$${BCRYPT_COST}$${bcrypt.encodeBase64(salt, SALT_BYTES)}`;
  const hash = await bcrypt.hash(passphrase, setting);
  return new Uint8Array(createHash("sha256").update(hash, "latin1").digest());
}
