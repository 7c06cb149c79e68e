import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AddressCodec } from "../../app/address-codec.js";
import { addressFromPubKey } from "../../crypto/address.js";
import { newMnemonic, privKeyFromMnemonic } from "../../crypto/hd-wallet.js";
import { secp256k1PublicKey, signSecp256k1 } from "../../crypto/secp256k1.js";
import type { KeyFileCodec } from "./key-file-codec.js";
import { type KeyInfo, type Keyring, KeyringError, type KeySigner } from "./keyring.js";

interface KeyFile {
  name: string;
  type: "local";
  pubkey: string;
  sealed: Record<string, string | number>;
}

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Keys as one JSON file each (`<name>.json`, mode 0600) in one folder (mode 0700). */
export class DirectoryKeyring implements Keyring {
  private readonly addresses: AddressCodec;

  constructor(
    private readonly dir: string,
    prefix: string,
    private readonly codec: KeyFileCodec,
  ) {
    this.addresses = new AddressCodec(prefix);
  }

  private path(name: string): string {
    if (!NAME_RE.test(name)) {
      throw new KeyringError("BAD_NAME", `invalid key name ${JSON.stringify(name)}: use letters, digits, '.', '_' or '-' (at most 64)`);
    }
    return join(this.dir, `${name}.json`);
  }

  private info(f: KeyFile): KeyInfo {
    const pubKey = new Uint8Array(Buffer.from(f.pubkey, "hex"));
    return { name: f.name, type: "local", pubKey, address: this.addresses.toString(addressFromPubKey(pubKey)) };
  }

  private readAll(): KeyFile[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .filter((f) => f.endsWith(".json"))
      .sort()
      .map((f) => JSON.parse(readFileSync(join(this.dir, f), "utf8")) as KeyFile);
  }

  private find(nameOrAddress: string): KeyFile {
    const found = this.readAll().find((f) => f.name === nameOrAddress || this.info(f).address === nameOrAddress);
    if (!found) throw new KeyringError("KEY_NOT_FOUND", `${nameOrAddress}.info: key not found`);
    return found;
  }

  async add(name: string, opts: { mnemonic?: string; account?: number; index?: number }): Promise<{ info: KeyInfo; mnemonic: string }> {
    const path = this.path(name);
    if (existsSync(path)) throw new KeyringError("KEY_EXISTS", `a key named ${name} already exists; delete it first`);
    const mnemonic = opts.mnemonic ?? newMnemonic();
    const priv = await privKeyFromMnemonic(mnemonic, opts);
    const file: KeyFile = { name, type: "local", pubkey: Buffer.from(secp256k1PublicKey(priv)).toString("hex"), sealed: this.codec.seal(priv) };
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileSync(`${path}.tmp`, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    return { info: this.info(file), mnemonic };
  }

  async get(nameOrAddress: string): Promise<KeyInfo> {
    return this.info(this.find(nameOrAddress));
  }

  async exists(name: string): Promise<boolean> {
    return existsSync(this.path(name));
  }

  async list(): Promise<KeyInfo[]> {
    return this.readAll().map((f) => this.info(f));
  }

  async delete(name: string): Promise<void> {
    const f = this.find(name);
    rmSync(this.path(f.name));
  }

  async signer(nameOrAddress: string): Promise<KeySigner> {
    const f = this.find(nameOrAddress);
    const priv = this.codec.open(f.sealed);
    const info = this.info(f);
    return { address: info.address, pubKey: info.pubKey, sign: (bytes) => signSecp256k1(priv, bytes) };
  }
}
