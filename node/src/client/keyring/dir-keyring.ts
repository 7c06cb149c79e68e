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
import { type MultisigKey, multisigAddress } from "../../crypto/multisig-address.js";
import { secp256k1PublicKey, signSecp256k1 } from "../../crypto/secp256k1.js";
import { checkKeyName } from "./key-name.js";
import type { KeyVault, SealedKey } from "./key-vault.js";
import type { AddKeyOptions, KeyInfo, Keyring, KeyringBackend, KeySigner, LocalKeyInfo } from "./keyring.js";
import { KeyringError } from "./keyring-error.js";

/** `<name>.info`: one key. The address is not stored: it is derived with the keyring's current prefix. */
type KeyRecord = LocalKeyRecord | MultiKeyRecord;

interface LocalKeyRecord extends SealedKey {
  version: 1;
  name: string;
  type: "local";
  algo: "secp256k1";
  hd_path?: string;
  /** base64 of the 33-byte compressed public key */
  pubkey: string;
}

/** An offline multisig key: its members' public keys, in the key's order, and how many must sign. */
interface MultiKeyRecord {
  version: 1;
  name: string;
  type: "multi";
  threshold: number;
  /** base64 of each member's 33-byte compressed public key */
  pubkeys: string[];
}

/** The most members a multisig key may have here (the node's default tx_sig_limit). */
const MAX_MULTISIG_MEMBERS = 7;

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

  async add(name: string, opts: AddKeyOptions = {}): Promise<{ info: LocalKeyInfo; mnemonic: string }> {
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
    return { info: await this.storeLocal(name, priv, hdPath), mnemonic };
  }

  async importPrivateKey(name: string, priv: Uint8Array): Promise<LocalKeyInfo> {
    checkKeyName(name);
    if (existsSync(this.infoPath(name))) throw new KeyringError("KEY_EXISTS", `key "${name}" already exists`);
    try {
      secp256k1PublicKey(priv);
    } catch {
      throw new KeyringError("CORRUPT_KEY", "not a valid secp256k1 private key");
    }
    return this.storeLocal(name, priv);
  }

  async exportPrivateKey(nameOrAddress: string): Promise<Uint8Array> {
    return this.privateKey(this.readRecord(this.resolve(nameOrAddress)));
  }

  async rename(nameOrAddress: string, newName: string): Promise<KeyInfo> {
    const record = this.readRecord(this.resolve(nameOrAddress));
    checkKeyName(newName);
    if (existsSync(this.infoPath(newName)))
      throw new KeyringError("KEY_EXISTS", `rename failed: key "${newName}" already exists in the keyring`);
    await this.deps.vault.unlock();
    const oldName = record.name;
    const renamed: KeyRecord = { ...record, name: newName };
    // New file first, old one last: a crash in between leaves the key under both names, never under none.
    this.store(renamed, Buffer.from(this.addressBytes(record)).toString("hex"));
    rmIfPresent(this.infoPath(oldName));
    return this.info(renamed);
  }

  async addMultisig(
    name: string,
    members: readonly string[],
    threshold: number,
    sort: boolean,
  ): Promise<KeyInfo> {
    checkKeyName(name);
    if (existsSync(this.infoPath(name))) throw new KeyringError("KEY_EXISTS", `key "${name}" already exists`);
    if (members.length < 1 || members.length > MAX_MULTISIG_MEMBERS)
      throw new KeyringError(
        "INVALID_MULTISIG",
        `a multisig key has 1 to ${MAX_MULTISIG_MEMBERS} members, got ${members.length}`,
      );
    if (!Number.isInteger(threshold) || threshold < 1 || threshold > members.length)
      throw new KeyringError(
        "INVALID_MULTISIG",
        `threshold must be 1 to ${members.length}, got ${threshold}`,
      );
    const keys: Uint8Array[] = [];
    for (const m of members) {
      const record = this.readRecord(this.resolve(m));
      if (record.type !== "local")
        throw new KeyringError("INVALID_MULTISIG", `member "${m}" is itself a multisig key`);
      keys.push(this.pubKey(record));
    }
    const hexes = keys.map((k) => Buffer.from(k).toString("hex"));
    if (new Set(hexes).size !== hexes.length)
      throw new KeyringError("INVALID_MULTISIG", "a member is named twice");
    if (sort) keys.sort((a, b) => Buffer.compare(addressFromPubKey(a), addressFromPubKey(b)));
    const record: MultiKeyRecord = {
      version: 1,
      name,
      type: "multi",
      threshold,
      pubkeys: keys.map((k) => Buffer.from(k).toString("base64")),
    };
    const addrHex = Buffer.from(this.addressBytes(record)).toString("hex");
    const owner = this.nameAtAddress(addrHex);
    if (owner !== null)
      throw new KeyringError("KEY_EXISTS", `this multisig key is already in the keyring as "${owner}"`);
    this.store(record, addrHex);
    return this.info(record);
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
    const addrHex = Buffer.from(this.addressBytes(record)).toString("hex");
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
    if (record.type !== "local")
      throw new KeyringError(
        "NOT_LOCAL",
        `key "${record.name}" is a multisig key: its members sign (tx sign --multisig), then tx multisign combines them`,
      );
    const pubKey = this.pubKey(record);
    const priv = await this.privateKey(record);
    return { address: this.address(pubKey), pubKey, sign: (bytes) => signSecp256k1(priv, bytes) };
  }

  /** A local key's private key, checked against its public key. */
  private async privateKey(record: KeyRecord): Promise<Uint8Array> {
    if (record.type !== "local")
      throw new KeyringError("NOT_LOCAL", `key "${record.name}" is a multisig key: it has no private key`);
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
    return priv;
  }

  /** Seals and writes a new local key; refuses an address the keyring already holds. */
  private async storeLocal(name: string, priv: Uint8Array, hdPath?: string): Promise<LocalKeyInfo> {
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
    const record: LocalKeyRecord = {
      version: 1,
      name,
      type: "local",
      algo: "secp256k1",
      ...(hdPath === undefined ? {} : { hd_path: hdPath }),
      pubkey: Buffer.from(pubKey).toString("base64"),
      ...sealed,
    };
    this.store(record, addrHex);
    return { name, type: "local", address: this.address(pubKey), pubKey };
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
    const known = record?.type === "multi" || (record?.type === "local" && record.algo === "secp256k1");
    if (record?.version !== 1 || !known || record.name !== name) {
      throw new KeyringError(
        "CORRUPT_KEY",
        `key file ${path} is not a version 1 secp256k1 or multisig key named "${name}"`,
      );
    }
    this.addressBytes(record);
    return record;
  }

  private store(record: KeyRecord, addrHex: string): void {
    mkdirSync(this.opts.dir, { recursive: true, mode: 0o700 });
    writeKeyFile(this.infoPath(record.name), `${JSON.stringify(record, null, 2)}\n`);
    writeKeyFile(this.addressPath(addrHex), `${JSON.stringify(record.name)}\n`);
  }

  private multisig(record: MultiKeyRecord): MultisigKey {
    const keys = (Array.isArray(record.pubkeys) ? record.pubkeys : []).map(
      (k) => new Uint8Array(Buffer.from(String(k), "base64")),
    );
    const { threshold } = record;
    if (
      keys.length === 0 ||
      keys.some((k) => k.length !== 33) ||
      !(threshold >= 1 && threshold <= keys.length)
    )
      throw new KeyringError("CORRUPT_KEY", `multisig key "${record.name}" has no valid keys and threshold`);
    return { threshold, keys };
  }

  private addressBytes(record: KeyRecord): Uint8Array {
    return record.type === "multi"
      ? multisigAddress(this.multisig(record))
      : addressFromPubKey(this.pubKey(record));
  }

  private pubKey(record: LocalKeyRecord): Uint8Array {
    const pubKey = new Uint8Array(Buffer.from(record.pubkey ?? "", "base64"));
    if (pubKey.length !== 33)
      throw new KeyringError("CORRUPT_KEY", `key "${record.name}" has no 33-byte public key`);
    return pubKey;
  }

  private info(record: KeyRecord): KeyInfo {
    const address = encodeBech32(this.opts.prefix, this.addressBytes(record));
    if (record.type === "multi")
      return { name: record.name, type: "multi", address, multisig: this.multisig(record) };
    return { name: record.name, type: "local", address, pubKey: this.pubKey(record) };
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
