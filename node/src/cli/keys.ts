import type { Argv, CommandModule } from "yargs";
import { chainPrefix } from "../client/chain-prefix.js";
import { CliError } from "../client/cli-error.js";
import { type KeyringArgs, keyringOptions, withCliKeyring } from "../client/cli-keyring.js";
import { SHOW_GROUP_HELP } from "../client/cobra-errors.js";
import { keyOutput, keyOutputsText, keyPubKeyJson } from "../client/keyring/key-output.js";
import type { Keyring } from "../client/keyring/keyring.js";
import type { TerminalInput } from "../client/keyring/terminal-input.js";
import { decodeBech32, encodeBech32 } from "../crypto/bech32.js";
import { generateMnemonic } from "../crypto/hd-wallet.js";
import type { GlobalArgs } from "./global-options.js";
import { confirmKeyChange } from "./keys-confirmation.js";
import {
  exportCommand,
  importCommand,
  importHexCommand,
  runExport,
  runImport,
  runImportHex,
} from "./keys-export-import.js";

/** Streams the command talks through; tests pass their own. */
export interface KeysIo {
  stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

export interface KeysArgs extends GlobalArgs, KeyringArgs {
  prefix?: string;
  output?: string;
}

interface AddArgs extends KeysArgs {
  name: string;
  recover: boolean;
  account: number;
  index: number;
  backup: boolean;
  multisig?: string;
  "multisig-threshold": number;
  nosort: boolean;
  ledger: boolean;
}

interface ListArgs extends KeysArgs {
  "list-names": boolean;
}

interface ShowArgs extends KeysArgs {
  name: string;
  address: boolean;
  pubkey: boolean;
  bech: "acc" | "val" | "cons";
}

/** The prefix suffix of each `--bech` kind, as the SDK names its address kinds. */
const BECH_SUFFIX = { acc: "", val: "valoper", cons: "valcons" } as const;

interface DeleteArgs extends KeysArgs {
  name: string;
  yes: boolean;
}

interface RenameArgs extends KeysArgs {
  old_name: string;
  new_name: string;
  yes: boolean;
}

export interface Session {
  ring: Keyring;
  input: TerminalInput;
  io: KeysIo;
}

/**
 * `chaind keys add|list|show|delete|rename|export|import|import-hex|mnemonic`, reading prompts from
 * `io.stdin` (terminal or piped lines).
 */
export function makeKeysCommand(io?: Partial<KeysIo>): CommandModule<GlobalArgs, KeysArgs> {
  const streams = (): KeysIo => ({
    stdin: io?.stdin ?? process.stdin,
    stdout: io?.stdout ?? process.stdout,
    stderr: io?.stderr ?? process.stderr,
  });
  const run =
    <A extends KeysArgs>(fn: (s: Session, args: A) => Promise<void>) =>
    (args: A) =>
      withSession(args, streams(), (s) => fn(s, args));
  return {
    command: "keys",
    describe: "Manage your application's keys",
    builder: (y) =>
      y
        .options(keyringOptions)
        .option("prefix", {
          type: "string",
          describe: "bech32 account address prefix (default: the genesis' bech32_prefix, else sdk)",
        })
        .option("output", {
          alias: "o",
          type: "string",
          choices: ["text", "json"],
          describe: "output format (default text)",
        })
        .command(addCommand(run(runAdd)))
        .command(listCommand(run(runList)))
        .command(showCommand(run(runShow)))
        .command(deleteCommand(run(runDelete)))
        .command(renameCommand(run(runRename)))
        .command(exportCommand(run(runExport)))
        .command(importCommand(run(runImport)))
        .command(importHexCommand(run(runImportHex)))
        .command(mnemonicCommand(() => streams().stdout.write(`${generateMnemonic()}\n`)))
        .demandCommand(1, SHOW_GROUP_HELP) as never,
    handler: () => {},
  };
}

export const keysCommand: CommandModule<GlobalArgs, KeysArgs> = makeKeysCommand();

function addCommand(handler: (a: AddArgs) => Promise<void>): CommandModule<KeysArgs, AddArgs> {
  return {
    command: "add <name>",
    describe: "Add a new key (printing its mnemonic), or recover one with --recover",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("name", { type: "string", demandOption: true, describe: "name of the new key" })
        .option("recover", {
          type: "boolean",
          default: false,
          describe: "read a BIP39 mnemonic and recover its key",
        })
        .option("account", {
          type: "number",
          default: 0,
          describe: "HD account: m/44'/118'/{account}'/0/{index}",
        })
        .option("index", { type: "number", default: 0, describe: "HD address index" })
        .option("backup", {
          type: "boolean",
          default: true,
          describe: "print the mnemonic (--no-backup hides it)",
        })
        .option("multisig", {
          type: "string",
          describe: "make an offline multisig key of these keys (comma-separated names)",
        })
        .option("multisig-threshold", {
          type: "number",
          default: 1,
          describe: "how many of the --multisig keys must sign",
        })
        .option("nosort", {
          type: "boolean",
          default: false,
          describe: "keep the --multisig keys in the order given (default: sorted by address, as Cosmos)",
        })
        .option("ledger", {
          type: "boolean",
          default: false,
          describe: "store a Ledger key reference (not supported by this build)",
        }) as never,
    handler,
  };
}

function listCommand(handler: (a: ListArgs) => Promise<void>): CommandModule<KeysArgs, ListArgs> {
  return {
    command: "list",
    describe: "List all keys",
    builder: (y: Argv<KeysArgs>) =>
      y.option("list-names", {
        alias: "n",
        type: "boolean",
        default: false,
        describe: "print only the names",
      }) as never,
    handler,
  };
}

function showCommand(handler: (a: ShowArgs) => Promise<void>): CommandModule<KeysArgs, ShowArgs> {
  return {
    command: "show <name>",
    describe: "Show a key, by name or by address",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("name", { type: "string", demandOption: true, describe: "key name or bech32 address" })
        .option("address", {
          alias: "a",
          type: "boolean",
          default: false,
          describe: "print only the address",
        })
        .option("pubkey", {
          alias: "p",
          type: "boolean",
          default: false,
          describe: "print only the public key",
        })
        .option("bech", {
          type: "string",
          choices: ["acc", "val", "cons"],
          default: "acc",
          describe: "the Bech32 prefix encoding for a key (acc|val|cons)",
        }) as never,
    handler,
  };
}

/** `--yes`: delete and rename ask first, unless told not to. */
const YES_OPTION = {
  alias: "y",
  type: "boolean",
  default: false,
  describe: "skip the confirmation",
} as const;

function deleteCommand(handler: (a: DeleteArgs) => Promise<void>): CommandModule<KeysArgs, DeleteArgs> {
  return {
    command: "delete <name>",
    describe: "Delete a key, by name or by address",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("name", { type: "string", demandOption: true, describe: "key name or bech32 address" })
        .option("yes", YES_OPTION) as never,
    handler,
  };
}

function renameCommand(handler: (a: RenameArgs) => Promise<void>): CommandModule<KeysArgs, RenameArgs> {
  return {
    command: "rename <old_name> <new_name>",
    describe: "Rename a key; its address and secret stay the same",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("old_name", {
          type: "string",
          demandOption: true,
          describe: "key name or bech32 address",
        })
        .positional("new_name", { type: "string", demandOption: true, describe: "the new name" })
        .option("yes", YES_OPTION) as never,
    handler,
  };
}

/** Needs no keyring: the words are printed, never stored. */
function mnemonicCommand(handler: () => void): CommandModule<KeysArgs, KeysArgs> {
  return {
    command: "mnemonic",
    describe: "Print a new 24-word BIP39 mnemonic (256 bits of entropy); nothing is stored",
    handler,
  };
}

async function runAdd({ ring, input, io }: Session, args: AddArgs): Promise<void> {
  if (args.ledger) throw new CliError("--ledger: hardware wallets are not supported by this build of chaind");
  if (await ring.exists(args.name)) {
    throw new CliError(`key "${args.name}" already exists; delete it first with "keys delete ${args.name}"`);
  }
  if (args.multisig !== undefined) {
    const members = args.multisig.split(",").map((m) => m.trim());
    const info = await ring.addMultisig(args.name, members, args["multisig-threshold"], !args.nosort);
    io.stderr.write(`Key ${info.name} stored: an offline multisig key\n`);
    if (args.output === "json") io.stdout.write(`${JSON.stringify(keyOutput(info))}\n`);
    else io.stdout.write(keyOutputsText([keyOutput(info)]));
    return;
  }
  const mnemonic = args.recover
    ? await input.readLine("> Enter your bip39 mnemonic\n", "mnemonic")
    : undefined;
  const { info, mnemonic: words } = await ring.add(args.name, {
    mnemonic,
    account: args.account,
    index: args.index,
  });
  // Like Cosmos: a recovered mnemonic is never echoed back.
  const showMnemonic = args.backup && !args.recover;
  if (args.output === "json") {
    io.stdout.write(`${JSON.stringify(keyOutput(info, showMnemonic ? words : undefined))}\n`);
    return;
  }
  io.stdout.write(keyOutputsText([keyOutput(info)]));
  if (showMnemonic) {
    io.stderr.write(
      "\n**Important** write this mnemonic phrase in a safe place.\n" +
        `It is the only way to recover your account if you ever forget your password.\n\n${words}\n\n`,
    );
  }
}

async function runList({ ring, io }: Session, args: ListArgs): Promise<void> {
  const keys = await ring.list();
  if (args["list-names"]) {
    for (const k of keys) io.stdout.write(`${k.name}\n`);
  } else if (args.output === "json") {
    io.stdout.write(`${JSON.stringify(keys.map((k) => keyOutput(k)))}\n`);
  } else if (keys.length === 0) {
    io.stderr.write("No records were found in keyring\n");
  } else {
    io.stdout.write(keyOutputsText(keys.map((k) => keyOutput(k))));
  }
}

async function runShow({ ring, io }: Session, args: ShowArgs): Promise<void> {
  if (args.address && args.pubkey) throw new CliError("cannot use both --address and --pubkey at once");
  if (args.output !== undefined && (args.address || args.pubkey)) {
    throw new CliError("cannot use --output with --address or --pubkey");
  }
  const stored = await ring.get(args.name);
  // The same key bytes under the operator (valoper) or consensus (valcons) prefix, as the SDK shows them.
  const accountPrefix = stored.address.slice(0, stored.address.lastIndexOf("1"));
  const info =
    args.bech === "acc"
      ? stored
      : {
          ...stored,
          address: encodeBech32(
            `${accountPrefix}${BECH_SUFFIX[args.bech]}`,
            decodeBech32(stored.address, accountPrefix),
          ),
        };
  if (args.address) io.stdout.write(`${info.address}\n`);
  else if (args.pubkey) io.stdout.write(`${JSON.stringify(keyPubKeyJson(info))}\n`);
  else if (args.output === "json") io.stdout.write(`${JSON.stringify(keyOutput(info))}\n`);
  else io.stdout.write(keyOutputsText([keyOutput(info)]));
}

async function runDelete({ ring, input, io }: Session, args: DeleteArgs): Promise<void> {
  const info = await ring.get(args.name);
  const confirmed =
    args.yes ||
    (await confirmKeyChange(
      input,
      "Key reference will be deleted. Continue?",
      `refusing to delete key "${info.name}" without confirmation`,
    ));
  if (!confirmed) {
    io.stderr.write("Aborted: key not deleted\n");
    return;
  }
  await ring.delete(info.name);
  io.stderr.write("Key deleted forever (uh oh!)\n");
}

async function runRename({ ring, input, io }: Session, args: RenameArgs): Promise<void> {
  const info = await ring.get(args.old_name);
  if (await ring.exists(args.new_name)) {
    throw new CliError(`rename failed: key "${args.new_name}" already exists in the keyring`);
  }
  const confirmed =
    args.yes ||
    (await confirmKeyChange(
      input,
      `Key reference will be renamed from ${info.name} to ${args.new_name}. Continue?`,
      `refusing to rename key "${info.name}" without confirmation`,
    ));
  if (!confirmed) {
    io.stderr.write("Aborted: key not renamed\n");
    return;
  }
  await ring.rename(info.name, args.new_name);
  io.stderr.write(
    info.type === "multi"
      ? "Public key reference renamed\n"
      : `Key was successfully renamed from ${info.name} to ${args.new_name}\n`,
  );
}

/** Opens the keyring for one command, prompts through `io`. */
function withSession(args: KeysArgs, io: KeysIo, fn: (s: Session) => Promise<void>): Promise<void> {
  return withCliKeyring(
    args,
    args.prefix ?? chainPrefix(args.home),
    (ring, input) => fn({ ring, input, io }),
    {
      input: io.stdin,
      output: io.stderr,
    },
  );
}
