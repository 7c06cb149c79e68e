import type { CommandModule } from "yargs";
import { openKeyring } from "../client/keyring/open-keyring.js";
import type { KeyInfo, Keyring } from "../client/keyring/keyring.js";
import { readGenesis } from "../config/genesis.js";
import { HomeLayout } from "../config/home-layout.js";
import { existsSync } from "node:fs";
import { CliError } from "./cli-error.js";
import type { GlobalArgs } from "./global-options.js";
import { InputLines } from "./input-lines.js";

interface KeysArgs extends GlobalArgs {
  "keyring-backend": string;
  "keyring-dir"?: string;
  output: string;
}

/** The chain's bech32 prefix comes from its genesis; a home without one uses "sdk". */
function prefixOf(home: string): string {
  const path = new HomeLayout(home).genesisJson;
  return existsSync(path) ? (readGenesis(path).bech32_prefix ?? "sdk") : "sdk";
}

async function keyringFor(args: KeysArgs, input: InputLines): Promise<Keyring> {
  const passphrase =
    args["keyring-backend"] === "file"
      ? (process.env.CHAIND_KEYRING_PASSPHRASE ?? (await input.ask("Enter keyring passphrase: ")))
      : undefined;
  try {
    return openKeyring({ backend: args["keyring-backend"], home: args["keyring-dir"] ?? args.home, prefix: prefixOf(args.home), passphrase });
  } catch (e) {
    throw new CliError((e as Error).message);
  }
}

function pubKeyJson(k: KeyInfo): string {
  return JSON.stringify({ "@type": "/sdk.crypto.secp256k1.PubKey", key: Buffer.from(k.pubKey).toString("base64") });
}

function printKeys(keys: KeyInfo[], output: string): void {
  const rows = keys.map((k) => ({ name: k.name, type: k.type, address: k.address, pubkey: pubKeyJson(k) }));
  if (output === "json") process.stdout.write(`${JSON.stringify(rows)}\n`);
  else for (const r of rows) process.stdout.write(`- address: ${r.address}\n  name: ${r.name}\n  pubkey: '${r.pubkey}'\n  type: ${r.type}\n`);
}

/** Runs a keyring action; keyring failures become one-line CLI errors. */
async function withKeyring<T>(args: KeysArgs, fn: (ring: Keyring, input: InputLines) => Promise<T>): Promise<T> {
  const input = new InputLines();
  const ring = await keyringFor(args, input);
  try {
    return await fn(ring, input);
  } catch (e) {
    if (e instanceof CliError) throw e;
    throw new CliError((e as Error).message);
  }
}

const add: CommandModule<KeysArgs, KeysArgs & { name: string; recover: boolean; account: number; index: number }> = {
  command: "add <name>",
  describe: "Add a new key, or recover one from a mnemonic with --recover",
  builder: (y) =>
    y
      .positional("name", { type: "string", demandOption: true })
      .option("recover", { type: "boolean", default: false, describe: "read a BIP39 mnemonic and recover the key" })
      .option("account", { type: "number", default: 0 })
      .option("index", { type: "number", default: 0 }) as never,
  handler: (args) =>
    withKeyring(args, async (ring, input) => {
      const mnemonic = args.recover ? await input.ask("> Enter your bip39 mnemonic\n") : undefined;
      const { info, mnemonic: words } = await ring.add(args.name, { mnemonic, account: args.account, index: args.index });
      if (args.output === "json") {
        process.stdout.write(`${JSON.stringify({ name: info.name, type: info.type, address: info.address, pubkey: pubKeyJson(info), ...(args.recover ? {} : { mnemonic: words }) })}\n`);
        return;
      }
      printKeys([info], "text");
      if (!args.recover) {
        process.stdout.write(`\n**Important** write this mnemonic phrase in a safe place.\nIt is the only way to recover your account if you ever forget your password.\n\n${words}\n`);
      }
    }),
};

const list: CommandModule<KeysArgs, KeysArgs & { "list-names": boolean }> = {
  command: "list",
  describe: "List all keys",
  builder: (y) => y.option("list-names", { alias: "n", type: "boolean", default: false }) as never,
  handler: (args) =>
    withKeyring(args, async (ring) => {
      const keys = await ring.list();
      if (args["list-names"]) for (const k of keys) process.stdout.write(`${k.name}\n`);
      else printKeys(keys, args.output);
    }),
};

const show: CommandModule<KeysArgs, KeysArgs & { key: string; address: boolean; pubkey: boolean }> = {
  command: "show <key>",
  describe: "Show a key by name or address",
  builder: (y) =>
    y
      .positional("key", { type: "string", demandOption: true })
      .option("address", { alias: "a", type: "boolean", default: false, describe: "print only the address" })
      .option("pubkey", { alias: "p", type: "boolean", default: false, describe: "print only the public key" }) as never,
  handler: (args) =>
    withKeyring(args, async (ring) => {
      const k = await ring.get(args.key);
      if (args.address) process.stdout.write(`${k.address}\n`);
      else if (args.pubkey) process.stdout.write(`${pubKeyJson(k)}\n`);
      else if (args.output === "json") process.stdout.write(`${JSON.stringify({ name: k.name, type: k.type, address: k.address, pubkey: pubKeyJson(k) })}\n`);
      else printKeys([k], "text");
    }),
};

const del: CommandModule<KeysArgs, KeysArgs & { name: string; yes: boolean }> = {
  command: "delete <name>",
  describe: "Delete a key",
  builder: (y) => y.positional("name", { type: "string", demandOption: true }).option("yes", { alias: "y", type: "boolean", default: false }) as never,
  handler: (args) =>
    withKeyring(args, async (ring, input) => {
      await ring.get(args.name);
      if (!args.yes) {
        if (!process.stdin.isTTY) throw new CliError("refusing to delete without confirmation: pass --yes when stdin is not a terminal");
        const answer = await input.ask("Key reference will be deleted. Continue? [y/N]: ");
        if (!/^y(es)?$/i.test(answer.trim())) throw new CliError("aborted");
      }
      await ring.delete(args.name);
      process.stderr.write("Key deleted forever (uh oh!)\n");
    }),
};

/** `chaind keys add|list|show|delete`. */
export const keysCommand: CommandModule<GlobalArgs, KeysArgs> = {
  command: "keys <command>",
  describe: "Manage your application's keys",
  builder: (y) =>
    y
      .option("keyring-backend", { type: "string", default: "test", describe: "keyring backend: test or file" })
      .option("keyring-dir", { type: "string", describe: "folder holding the keyring (defaults to --home)" })
      .option("output", { alias: "o", type: "string", choices: ["text", "json"], default: "text" })
      .command(add)
      .command(list)
      .command(show)
      .command(del)
      .demandCommand(1) as never,
  handler: () => {},
};
