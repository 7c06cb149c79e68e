import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import yargs from "yargs";
import { globalOptions } from "../../../node/src/cli/global-options.js";
import { makeKeysCommand } from "../../../node/src/cli/keys.js";
import { CliError } from "../../../node/src/client/cli-error.js";
import { decodeBech32, encodeBech32 } from "../../../node/src/crypto/bech32.js";
import { deriveSecp256k1Key } from "../../../node/src/crypto/hd-wallet.js";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ALICE = encodeBech32("sdk", decodeBech32("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4"));

function sink(): Writable & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(w, { text: () => chunks.join("") });
}

/**
 * Runs `chaind keys ...` in-process with the given stdin lines; `tty` makes stdin look like a terminal. The
 * `test` backend unless the args name one: most cases here are about the command, not the encryption.
 */
async function keys(home: string, args: string[], stdin = "", tty = false) {
  const input = Object.assign(new PassThrough(), { isTTY: tty });
  input.end(stdin);
  const stdout = sink();
  const stderr = sink();
  const backend = args.includes("--keyring-backend") ? [] : ["--keyring-backend", "test"];
  await run(["keys", ...args, ...backend, "--home", home], { stdin: input, stdout, stderr });
  return { stdout: stdout.text(), stderr: stderr.text() };
}

/** `keys` exactly as given: no backend flag added. */
async function keysAsGiven(home: string, args: string[], stdin = "") {
  const input = Object.assign(new PassThrough(), { isTTY: false });
  input.end(stdin);
  const stdout = sink();
  const stderr = sink();
  await run(["keys", ...args, "--home", home], { stdin: input, stdout, stderr });
  return { stdout: stdout.text(), stderr: stderr.text() };
}

async function run(argv: string[], io: { stdin: PassThrough; stdout: Writable; stderr: Writable }) {
  await yargs(argv)
    .options(globalOptions)
    .command(makeKeysCommand(io))
    .strict()
    .fail((msg, err) => {
      throw err ?? new CliError(msg);
    })
    .parseAsync();
}

describe("chaind keys", () => {
  let home: string;
  beforeEach(() => {
    home = mkdtempSync(join(tmpdir(), "keys-cmd-"));
  });
  afterEach(() => rmSync(home, { recursive: true, force: true }));

  it("add --recover reads the mnemonic from piped stdin; show -a prints just the address", async () => {
    const added = await keys(home, ["add", "alice", "--recover"], `${ABANDON}\n`);
    expect(added.stdout).toContain(
      `- address: ${ALICE}\n  name: alice\n  pubkey: '{"@type":"/sdk.crypto.secp256k1.PubKey","key":"`,
    );
    expect(added.stderr).not.toContain("Important");
    expect(added.stdout + added.stderr).not.toContain("abandon about");

    expect((await keys(home, ["show", "alice", "-a"])).stdout).toBe(`${ALICE}\n`);
    expect((await keys(home, ["show", ALICE, "--address"])).stdout).toBe(`${ALICE}\n`);
    expect((await keys(home, ["show", "alice", "-a", "--prefix", "cosmos"])).stdout).toBe(
      "cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4\n",
    );
    // --bech: the same key bytes as an operator or consensus address.
    expect((await keys(home, ["show", "alice", "-a", "--prefix", "cosmos", "--bech", "val"])).stdout).toBe(
      "cosmosvaloper19rl4cm2hmr8afy4kldpxz3fka4jguq0ae5egnx\n",
    );
    expect((await keys(home, ["show", "alice", "-a", "--prefix", "cosmos", "--bech", "cons"])).stdout).toBe(
      "cosmosvalcons19rl4cm2hmr8afy4kldpxz3fka4jguq0ad825l8\n",
    );
    const pub = JSON.parse((await keys(home, ["show", "alice", "-p"])).stdout);
    expect(pub["@type"]).toBe("/sdk.crypto.secp256k1.PubKey");
    expect(Buffer.from(pub.key, "base64")).toHaveLength(33);

    const shown = JSON.parse((await keys(home, ["show", "alice", "-o", "json"])).stdout);
    expect(shown).toEqual({ name: "alice", type: "local", address: ALICE, pubkey: JSON.stringify(pub) });
    expect((await keys(home, ["show", "alice"])).stdout).toBe(added.stdout);
  });

  it("add prints the mnemonic with a warning unless --no-backup; json carries it", async () => {
    const text = await keys(home, ["add", "bob"]);
    expect(text.stdout).toMatch(/^- address: sdk1/);
    expect(text.stderr).toContain("**Important** write this mnemonic phrase in a safe place.");
    const words = text.stderr.trim().split("\n").at(-1)!.split(" ");
    expect(words).toHaveLength(24);

    const json = JSON.parse((await keys(home, ["add", "carol", "--output", "json"])).stdout);
    expect(json).toMatchObject({ name: "carol", type: "local" });
    expect(json.mnemonic.split(" ")).toHaveLength(24);

    const quiet = await keys(home, ["add", "dave", "--no-backup", "-o", "json"]);
    expect(JSON.parse(quiet.stdout).mnemonic).toBeUndefined();
    expect((await keys(home, ["add", "erin", "--no-backup"])).stderr).not.toContain("Important");

    await expect(keys(home, ["add", "bob"])).rejects.toThrow(/key "bob" already exists/);
  });

  it("list: json, text, names", async () => {
    expect((await keys(home, ["list"])).stderr).toContain("No records were found in keyring");
    expect(JSON.parse((await keys(home, ["list", "-o", "json"])).stdout)).toEqual([]);
    await keys(home, ["add", "zed"]);
    await keys(home, ["add", "alice", "--recover"], `${ABANDON}\n`);
    const list = JSON.parse((await keys(home, ["list", "--output", "json"])).stdout);
    expect(list.map((k: { name: string }) => k.name)).toEqual(["alice", "zed"]);
    expect(list[0].address).toBe(ALICE);
    expect((await keys(home, ["list", "--list-names"])).stdout).toBe("alice\nzed\n");
    expect((await keys(home, ["list", "-n"])).stdout).toBe("alice\nzed\n");
    expect((await keys(home, ["list"])).stdout.match(/^- address:/gm)).toHaveLength(2);
  });

  it("delete: --yes, refuses without a terminal, asks on a terminal", async () => {
    await keys(home, ["add", "alice", "--recover"], `${ABANDON}\n`);
    await keys(home, ["add", "bob"]);
    await expect(keys(home, ["delete", "alice"])).rejects.toThrow(/stdin is not a terminal; pass --yes/);
    expect((await keys(home, ["delete", "alice"], "n\n", true)).stderr).toContain("not deleted");
    expect((await keys(home, ["delete", "alice"], "y\n", true)).stderr).toContain("Key deleted forever");
    expect((await keys(home, ["delete", "bob", "-y"])).stderr).toContain("Key deleted forever");
    expect((await keys(home, ["list", "-n"])).stdout).toBe("");
    await expect(keys(home, ["delete", "bob", "-y"])).rejects.toThrow(/key "bob" not found/);
  });

  it("file backend takes the passphrase (and its confirmation) from piped stdin", async () => {
    const file = ["--keyring-backend", "file"];
    await keys(
      home,
      ["add", "alice", "--recover", ...file],
      `${ABANDON}\nsecret passphrase\nsecret passphrase\n`,
    );
    expect((await keys(home, ["show", "alice", "-a", ...file])).stdout).toBe(`${ALICE}\n`);
    await expect(keys(home, ["add", "bob", ...file], "wrong passphrase\n")).rejects.toThrow(
      "invalid account password",
    );
    await expect(keys(home, ["add", "bob", ...file], "")).rejects.toThrow(/no keyring passphrase given/);
    await keys(home, ["add", "bob", ...file], "secret passphrase\n");
    await keys(home, ["delete", "bob", "-y", ...file], "secret passphrase\n");
    expect((await keys(home, ["list", "-n", ...file])).stdout).toBe("alice\n");
  });

  it("without --keyring-backend or a client.toml, keys go to the encrypted file backend", async () => {
    await expect(keysAsGiven(home, ["add", "alice", "--recover"], `${ABANDON}\n`)).rejects.toThrow(
      /no keyring passphrase given/,
    );
    const added = await keysAsGiven(
      home,
      ["add", "alice", "--recover"],
      `${ABANDON}\nsecret passphrase\nsecret passphrase\n`,
    );
    expect(added.stdout).toContain(`- address: ${ALICE}`);
    expect(existsSync(join(home, "keyring-test"))).toBe(false);
    const info = readFileSync(join(home, "keyring-file", "alice.info"), "utf8");
    expect(info).not.toContain(Buffer.from(deriveSecp256k1Key(ABANDON)).toString("hex"));
    expect(JSON.parse(info).crypto.cipher).toBe("aes-256-gcm");
    expect((await keysAsGiven(home, ["show", "alice", "-a"])).stdout).toBe(`${ALICE}\n`);
  });

  it("fails clearly on bad input", async () => {
    await expect(keys(home, ["add", "x", "--recover"], "not a mnemonic\n")).rejects.toThrow(
      "invalid mnemonic",
    );
    await expect(keys(home, ["add", "x", "--recover"], "")).rejects.toThrow(/no mnemonic given/);
    await expect(keys(home, ["add", "a/b"])).rejects.toThrow(/invalid key name/);
    await expect(keys(home, ["add", "x", "--keyring-backend", "os"])).rejects.toThrow(
      /"os" is not supported/,
    );
    await expect(keys(home, ["list", "--keyring-backend", "kwallet"])).rejects.toThrow(
      /"kwallet" is not supported/,
    );
    await expect(keys(home, ["show", "nobody"])).rejects.toThrow(/key "nobody" not found/);
    await keys(home, ["add", "alice", "--recover"], `${ABANDON}\n`);
    await expect(keys(home, ["show", "alice", "-a", "-p"])).rejects.toThrow(/both --address and --pubkey/);
    await expect(keys(home, ["show", "alice", "-a", "-o", "json"])).rejects.toThrow(
      /--output with --address/,
    );
    for (const e of [keys(home, ["show", "nobody"]), keys(home, ["add", "x", "--recover"], "bad\n")]) {
      await expect(e).rejects.toBeInstanceOf(CliError);
    }
  });

  it("--keyring-dir overrides --home", async () => {
    const other = mkdtempSync(join(tmpdir(), "keys-dir-"));
    try {
      await keys(home, ["add", "alice", "--keyring-dir", other]);
      expect((await keys(home, ["list", "-n"])).stdout).toBe("");
      expect((await keys(home, ["list", "-n", "--keyring-dir", other])).stdout).toBe("alice\n");
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
