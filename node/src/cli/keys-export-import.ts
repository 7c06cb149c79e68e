import { readFileSync } from "node:fs";
import type { Argv, CommandModule } from "yargs";
import { CliError } from "../client/cli-error.js";
import {
  armorPrivateKey,
  decryptArmoredPrivateKey,
  parseArmoredPrivateKey,
} from "../client/keyring/armored-private-key.js";
import { MIN_PASSPHRASE_LENGTH } from "../client/keyring/key-encryption.js";
import type { KeyInfo, LocalKeyInfo } from "../client/keyring/keyring.js";
import type { KeysArgs, Session } from "./keys.js";
import { isYes } from "./keys-confirmation.js";

interface ExportArgs extends KeysArgs {
  name: string;
  "unarmored-hex": boolean;
  unsafe: boolean;
}

interface ImportArgs extends KeysArgs {
  name: string;
  keyfile: string;
}

interface ImportHexArgs extends KeysArgs {
  name: string;
  hex?: string;
  "key-type": string;
}

export function exportCommand(
  handler: (a: ExportArgs) => Promise<void>,
): CommandModule<KeysArgs, ExportArgs> {
  return {
    command: "export <name>",
    describe: "Print a private key ASCII-armored and passphrase-encrypted, as Cosmos's keys export does",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("name", { type: "string", demandOption: true, describe: "key name or bech32 address" })
        .option("unarmored-hex", {
          type: "boolean",
          default: false,
          describe: "print the raw private key as hex instead (needs --unsafe)",
        })
        .option("unsafe", {
          type: "boolean",
          default: false,
          describe: "allow unsafe operations; required with --unarmored-hex",
        }) as never,
    handler,
  };
}

export function importCommand(
  handler: (a: ImportArgs) => Promise<void>,
): CommandModule<KeysArgs, ImportArgs> {
  return {
    command: "import <name> <keyfile>",
    describe: "Import an ASCII-armored private key (from keys export, here or in a Cosmos CLI)",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("name", { type: "string", demandOption: true, describe: "name of the new key" })
        .positional("keyfile", {
          type: "string",
          demandOption: true,
          describe: "file holding the armored key",
        }) as never,
    handler,
  };
}

export function importHexCommand(
  handler: (a: ImportHexArgs) => Promise<void>,
): CommandModule<KeysArgs, ImportHexArgs> {
  return {
    command: "import-hex <name> [hex]",
    describe: "Import a hex-encoded private key (asked for when not given)",
    builder: (y: Argv<KeysArgs>) =>
      y
        .positional("name", { type: "string", demandOption: true, describe: "name of the new key" })
        .positional("hex", { type: "string", describe: "the 32-byte private key, hex, 0x optional" })
        .option("key-type", {
          type: "string",
          default: "secp256k1",
          describe: "private key signing algorithm (only secp256k1)",
        }) as never,
    handler,
  };
}

/** Stdin lines, as Cosmos reads them: the export passphrase, then the keyring's (file backend). */
export async function runExport({ ring, input, io }: Session, args: ExportArgs): Promise<void> {
  if (args["unarmored-hex"] !== args.unsafe) {
    throw new CliError("the flags --unsafe and --unarmored-hex must be used together");
  }
  const info = localKey(await ring.get(args.name), "export");
  if (args.unsafe) {
    const answer = await input.readLine(
      "WARNING: The private key will be exported as an unarmored hexadecimal string. USE AT YOUR OWN RISK. Continue? [y/N]: ",
      "confirmation",
    );
    if (!isYes(answer)) {
      io.stderr.write("Aborted: nothing exported\n");
      return;
    }
    io.stdout.write(`${Buffer.from(await ring.exportPrivateKey(info.name)).toString("hex")}\n`);
    return;
  }
  const passphrase = await input.readSecret(
    "Enter passphrase to encrypt the exported key:",
    "passphrase to encrypt the exported key",
  );
  if (passphrase.length < MIN_PASSPHRASE_LENGTH) {
    throw new CliError(`password must be at least ${MIN_PASSPHRASE_LENGTH} characters`);
  }
  const priv = await ring.exportPrivateKey(info.name);
  io.stdout.write(`${await armorPrivateKey(priv, passphrase)}\n`);
}

/** Stdin lines: the armored key's passphrase, then the keyring's (file backend). */
export async function runImport({ ring, input, io }: Session, args: ImportArgs): Promise<void> {
  await refuseTaken(ring, args.name);
  let text: string;
  try {
    text = readFileSync(args.keyfile, "utf8");
  } catch (e) {
    throw new CliError(`cannot read key file ${args.keyfile}: ${(e as Error).message}`);
  }
  const armored = parseArmoredPrivateKey(text);
  const passphrase = await input.readSecret(
    "Enter passphrase to decrypt your key:",
    "passphrase of the key file",
  );
  const info = await ring.importPrivateKey(args.name, await decryptArmoredPrivateKey(armored, passphrase));
  io.stderr.write(`Key ${info.name} imported: ${info.address}\n`);
}

export async function runImportHex({ ring, input, io }: Session, args: ImportHexArgs): Promise<void> {
  if (args["key-type"] !== "secp256k1") {
    throw new CliError(`unsupported signing algorithm "${args["key-type"]}": only secp256k1 is supported`);
  }
  await refuseTaken(ring, args.name);
  const given = args.hex ?? (await input.readSecret("Enter hex private key:", "hex private key"));
  const hex = given.trim().replace(/^0x/i, "");
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    throw new CliError("invalid private key: want 32 bytes as 64 hex digits (0x optional)");
  }
  const info = await ring.importPrivateKey(args.name, new Uint8Array(Buffer.from(hex, "hex")));
  io.stderr.write(`Key ${info.name} imported: ${info.address}\n`);
}

/** Fails before any prompt, so a taken name costs the user no typing. */
async function refuseTaken(ring: Session["ring"], name: string): Promise<void> {
  if (await ring.exists(name)) {
    throw new CliError(
      `key "${name}" already exists; delete or rename it first, or import under another name`,
    );
  }
}

function localKey(info: KeyInfo, what: string): LocalKeyInfo {
  if (info.type !== "local") {
    throw new CliError(`key "${info.name}" is a multisig key: it has no private key to ${what}`);
  }
  return info;
}
