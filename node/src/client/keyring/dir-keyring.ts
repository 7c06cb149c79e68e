import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { writeFileAtomic } from "@chaind/core/atomic-file";
import { addressFromPubKey } from "../../crypto/address.js";
import { decodeBech32, encodeBech32 } from "../../crypto/bech32.js";
import {
  cosmosHdPath,
  deriveSecp256k1Key,
  generateMnemonic,
  normalizeMnemonic,
} from "../../crypto/hd-wallet.js";
import { secp256k1PublicKey, signSecp256k1 } from "../../crypto/secp256k1.js";
import { checkKeyName } from "./key-name.js";
import type { KeyVault, SealedKey } from "./key-vault.js";
import type { AddKeyOptions, KeyInfo, Keyring, KeyringBackend, KeySigner } from "./keyring.js";
import { KeyringError } from "./keyring-error.js";

/** `<name>.info`: one key. The address is not stored: it is derived with the keyring's current prefix. */
interface KeyRecord extends SealedKey {
  version: 1;
  name: string;
  type: "local";
  algo: "secp256k1";
  hd_path?: string;
  /** base64 of the 33-byte compressed public key */
  pubkey: string;
}

/**
 * A keyring in one folder: `<name>.info` per key and `<hex address>.address` (holding the name) as the
 * address index, like Cosmos's keyring layout. Folder 0700, files 0600, each written atomically.
 */
export class DirKeyring implements Keyring {
  constructor(
    private readonly opts: { backend: KeyringBackend; dir: string; prefix: string },
    private readonly deps: { vault: KeyVault },
  ) {}

  get backend(): KeyringBackend {
    return this.opts.backend;
  }

  async add(name: string, opts: AddKeyOptions = {}): Promise<{ info: KeyInfo; mnemonic: string }> {
    checkKeyName(name);
    if (existsSync(this.infoPath(name))) throw new KeyringError("KEY_EXISTS", `key "${name}" already exists`);
    let mnemonic: string;
    try {
      mnemonic = opts.mnemonic === undefined ? generateMnemonic() : normalizeMnemonic(opts.mnemonic);
    } catch {
      throw new KeyringError("INVALID_MNEMONIC", "invalid mnemonic");
    }
    let hdPath: string;
    let priv: Uint8Array;
    try {
      hdPath = cosmosHdPath(opts.account, opts.index);
      priv = deriveSecp256k1Key(mnemonic, opts);
    } catch (e) {
      throw new KeyringError("INVALID_MNEMONIC", (e as Error).message);
    }
    const pubKey = secp256k1PublicKey(priv);
    const addrHex = Buffer.from(addressFromPubKey(pubKey)).toString("hex");
    const owner = this.nameAtAddress(addrHex);
    if (owner !== null) {
      throw new KeyringError(
        "KEY_EXISTS",
        `address ${this.address(pubKey)} is already in the keyring as "${owner}"`,
      );
    }
    const sealed = await this.deps.vault.seal(priv, pubKey);
    const record: KeyRecord = {
      version: 1,
      name,
      type: "local",
      algo: "secp256k1",
      hd_path: hdPath,
      pubkey: Buffer.from(pubKey).toString("base64"),
      ...sealed,
    };
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    writeKeyFile(this.infoPath(name), `${JSON.stringify(record, null, 2)}\n`);
    writeKeyFile(this.addressPath(addrHex), `${JSON.stringify(name)}\n`);
    return { info: this.info(record), mnemonic };
  }

  async get(nameOrAddress: string): Promise<KeyInfo> {
    return this.info(this.readRecord(this.resolve(nameOrAddress)));
  }

  async list(): Promise<KeyInfo[]> {
    if (!existsSync(this.opts.dir)) return [];
    return readdirSync(this.opts.dir)
      .filter((f) => f.endsWith(".info"))
      .map((f) => this.info(this.readRecord(f.slice(0, -".info".length))))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async delete(nameOrAddress: string): Promise<void> {
    const name = this.resolve(nameOrAddress);
    const record = this.readRecord(name);
    await this.deps.vault.unlock();
    const addrHex = Buffer.from(addressFromPubKey(this.pubKey(record))).toString("hex");
    rmIfPresent(this.addressPath(addrHex));
    rmIfPresent(this.infoPath(name));
  }

  async exists(nameOrAddress: string): Promise<boolean> {
    try {
      this.resolve(nameOrAddress);
      return true;
    } catch (e) {
      if (e instanceof KeyringError && e.code === "KEY_NOT_FOUND") return false;
      throw e;
    }
  }

  async signer(nameOrAddress: string): Promise<KeySigner> {
    const record = this.readRecord(this.resolve(nameOrAddress));
    const pubKey = this.pubKey(record);
    const priv = await this.deps.vault.open(record, pubKey);
    let derived: Uint8Array;
    try {
      derived = secp256k1PublicKey(priv);
    } catch {
      throw new KeyringError("CORRUPT_KEY", `key "${record.name}" holds an invalid private key`);
    }
    if (Buffer.compare(Buffer.from(derived), Buffer.from(pubKey)) !== 0) {
      throw new KeyringError(
        "CORRUPT_KEY",
        `key "${record.name}": private key does not match its public key`,
      );
    }
    return { address: this.address(pubKey), pubKey, sign: (bytes) => signSecp256k1(priv, bytes) };
  }

  /** The key name for a name or a bech32 address, or KEY_NOT_FOUND. */
  private resolve(nameOrAddress: string): string {
    const notFound = () => new KeyringError("KEY_NOT_FOUND", `key "${nameOrAddress}" not found`);
    let validName = true;
    try {
      checkKeyName(nameOrAddress);
    } catch {
      validName = false;
    }
    if (validName && existsSync(this.infoPath(nameOrAddress))) return nameOrAddress;
    let addr: Uint8Array;
    try {
      addr = decodeBech32(nameOrAddress, this.opts.prefix);
    } catch {
      if (!validName) checkKeyName(nameOrAddress);
      throw notFound();
    }
    const name = this.nameAtAddress(Buffer.from(addr).toString("hex"));
    if (name === null || !existsSync(this.infoPath(name))) throw notFound();
    return name;
  }

  private nameAtAddress(addrHex: string): string | null {
    const path = this.addressPath(addrHex);
    if (!existsSync(path)) return null;
    try {
      const name = JSON.parse(readFileSync(path, "utf8")) as unknown;
      if (typeof name === "string") return name;
    } catch {}
    throw new KeyringError("CORRUPT_KEY", `corrupt address index file ${path}`);
  }

  private readRecord(name: string): KeyRecord {
    const path = this.infoPath(name);
    let record: KeyRecord;
    try {
      record = JSON.parse(readFileSync(path, "utf8")) as KeyRecord;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT")
        throw new KeyringError("KEY_NOT_FOUND", `key "${name}" not found`);
      throw new KeyringError("CORRUPT_KEY", `cannot read key file ${path}: ${(e as Error).message}`);
    }
    if (record?.version !== 1 || record.algo !== "secp256k1" || record.name !== name) {
      throw new KeyringError(
        "CORRUPT_KEY",
        `key file ${path} is not a version 1 secp256k1 key named "${name}"`,
      );
    }
    this.pubKey(record);
    return record;
  }

  private pubKey(record: KeyRecord): Uint8Array {
    const pubKey = new Uint8Array(Buffer.from(record.pubkey ?? "", "base64"));
    if (pubKey.length !== 33)
      throw new KeyringError("CORRUPT_KEY", `key "${record.name}" has no 33-byte public key`);
    return pubKey;
  }

  private info(record: KeyRecord): KeyInfo {
    const pubKey = this.pubKey(record);
    return { name: record.name, type: "local", address: this.address(pubKey), pubKey };
  }

  private address(pubKey: Uint8Array): string {
    return encodeBech32(this.opts.prefix, addressFromPubKey(pubKey));
  }

  private infoPath(name: string): string {
    return join(this.opts.dir, `${name}.info`);
  }

  private addressPath(addrHex: string): string {
    return join(this.opts.dir, `${addrHex}.address`);
  }
}

function rmIfPresent(path: string): void {
  try {
    unlinkSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
  }
}

/** A key file whole or not at all, owner-only, on disk before it is relied on. */
function writeKeyFile(path: string, text: string): void {
  writeFileAtomic(path, text, { mode: 0o600, durable: true });
}
