import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { xsalsa20poly1305 } from "@noble/ciphers/salsa.js";
import { validateMnemonic } from "@scure/bip39";
import { wordlist } from "@scure/bip39/wordlists/english.js";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseArmoredPrivateKey } from "../../../node/src/client/keyring/armored-private-key.js";
import { decodeBech32, encodeBech32 } from "../../../node/src/crypto/bech32.js";
import { deriveSecp256k1Key } from "../../../node/src/crypto/hd-wallet.js";
import { chaind } from "../helpers/chaind-process.js";

const ABANDON =
  "abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about";
const ABANDON_ADDRESS = encodeBech32("sdk", decodeBech32("cosmos19rl4cm2hmr8afy4kldpxz3fka4jguq0auqdal4"));
const ABANDON_PRIV_HEX = Buffer.from(deriveSecp256k1Key(ABANDON)).toString("hex");

/**
 * An armored key as `keys export` of the Cosmos SDK wrote it (cosmos-sdk client/keys/import_test.go),
 * passphrase "123456789". Its key's public key and address below were computed from the decrypted key.
 */
const COSMOS_ARMOR = `-----BEGIN TENDERMINT PRIVATE KEY-----
salt: A790BB721D1C094260EA84F5E5B72289
kdf: bcrypt

HbP+c6JmeJy9JXe2rbbF1QtCX1gLqGcDQPBXiCtFvP7/8wTZtVOPj8vREzhZ9ElO
3P7YnrzPQThG0Q+ZnRSbl9MAS8uFAM4mqm5r/Ys=
=f3l4
-----END TENDERMINT PRIVATE KEY-----
`;
const COSMOS_PRIV_HEX = "2485e33678db4175dc0ecef2d6e1fc493d4a0d7f7ce83324b6ed70afe77f3485";
const COSMOS_PUBKEY = "A0/vnNfExjWI07A/61KBudIyy6NNbz1xruWSEf+/4f6H";
const COSMOS_ADDRESS = encodeBech32("sdk", decodeBech32("cosmos1w34k53py5v5xyluazqpq65agyajavep2rflq6h"));

const TEST = ["--keyring-backend", "test"];
const FILE = ["--keyring-backend", "file"];

/** One line, no stack trace: what the brief asks of every refusal. */
function expectOneLineError(r: { exitCode?: number; stderr: string }, re: RegExp): void {
  expect(r.exitCode).not.toBe(0);
  const lines = r.stderr.split("\n").filter((l) => l.startsWith("Error:") || /^\s+at /.test(l));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(re);
}

/** OpenPGP CRC-24 (RFC 4880 §6.1), written here from the RFC, not taken from the node's code. */
function crc24(data: Uint8Array): number {
  let crc = 0xb704ce;
  for (const b of data) {
    crc ^= b << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/** Decrypts an export the way Cosmos's code does, with bcryptjs and @noble/ciphers directly. */
async function cosmosDecrypt(armor: string, passphrase: string): Promise<Uint8Array> {
  const m = armor.match(
    /^-----BEGIN TENDERMINT PRIVATE KEY-----\nkdf: bcrypt\nsalt: ([0-9A-F]{32})\ntype: secp256k1\n\n((?:[A-Za-z0-9+/=]{1,64}\n)+)=([A-Za-z0-9+/]{4})\n-----END TENDERMINT PRIVATE KEY-----\n$/,
  );
  expect(m, armor).not.toBeNull();
  const [, saltHex, body, checksum] = m!;
  const lines = body.trimEnd().split("\n");
  for (const l of lines.slice(0, -1)) expect(l).toHaveLength(64);
  const data = Buffer.from(lines.join(""), "base64");
  const crc = crc24(data);
  expect(checksum).toBe(Buffer.from([crc >> 16, (crc >> 8) & 0xff, crc & 0xff]).toString("base64"));
  const hash = await bcrypt.hash(
    passphrase,
    `$2a$12$${bcrypt.encodeBase64(Buffer.from(saltHex, "hex"), 16)}`,
  );
  const key = createHash("sha256").update(hash).digest();
  return xsalsa20poly1305(key, data.subarray(0, 24)).decrypt(data.subarray(24));
}

// Each case has its own home; they run side by side to keep the file short.
describe.concurrent("chaind keys export / import / import-hex / rename / mnemonic", () => {
  let dir: string;
  let cosmosFile: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "keys-export-"));
    cosmosFile = join(dir, "cosmos.armor");
    writeFileSync(cosmosFile, COSMOS_ARMOR);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a file-backend key exported, decrypted independently, and imported into another home keeps its address", async () => {
    const a = join(dir, "export-a");
    const b = join(dir, "export-b");
    const added = await chaind(["keys", "add", "alice", "--recover", "--home", a, ...FILE], {
      input: `${ABANDON}\nkeyring pass A\nkeyring pass A\n`,
    });
    expect(added.exitCode, added.stderr).toBe(0);

    // As Cosmos reads them: the export passphrase, then the keyring's.
    const exported = await chaind(["keys", "export", "alice", "--home", a, ...FILE], {
      input: "export passphrase\nkeyring pass A\n",
    });
    expect(exported.exitCode, exported.stderr).toBe(0);
    const armor = `${exported.stdout}\n`;
    const plain = await cosmosDecrypt(armor, "export passphrase");
    expect(Buffer.from(plain).toString("hex")).toBe(`e1b0f79b20${ABANDON_PRIV_HEX}`);

    const file = join(dir, "alice.armor");
    writeFileSync(file, armor);
    const imported = await chaind(["keys", "import", "alice2", file, "--home", b, ...TEST], {
      input: "export passphrase\n",
    });
    expect(imported.exitCode, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(`Key alice2 imported: ${ABANDON_ADDRESS}`);
    expect((await chaind(["keys", "show", "alice2", "-a", "--home", b, ...TEST])).stdout).toBe(
      ABANDON_ADDRESS,
    );

    expectOneLineError(
      await chaind(["keys", "import", "carol", file, "--home", b, ...TEST], { input: "wrong passphrase\n" }),
      /^Error: invalid account password$/,
    );
    expectOneLineError(
      await chaind(["keys", "export", "alice", "--home", a, ...FILE], { input: "short\n" }),
      /password must be at least 8 characters/,
    );
    expect(readdirSync(join(b, "keyring-test")).filter((f) => f.endsWith(".info"))).toEqual(["alice2.info"]);
  });

  it("imports a key exported by the Cosmos SDK, into the file backend", async () => {
    const home = join(dir, "cosmos-vector");
    const r = await chaind(["keys", "import", "gaia", cosmosFile, "--home", home, ...FILE], {
      input: "123456789\nkeyring passphrase\nkeyring passphrase\n",
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const shown = await chaind(["keys", "show", "gaia", "-o", "json", "--home", home, ...FILE]);
    expect(JSON.parse(shown.stdout)).toMatchObject({
      name: "gaia",
      address: COSMOS_ADDRESS,
      pubkey: JSON.stringify({ "@type": "/sdk.crypto.secp256k1.PubKey", key: COSMOS_PUBKEY }),
    });
    const hex = await chaind(
      ["keys", "export", "gaia", "--unarmored-hex", "--unsafe", "--home", home, ...FILE],
      {
        input: "y\nkeyring passphrase\n",
      },
    );
    expect(hex.exitCode, hex.stderr).toBe(0);
    expect(hex.stdout).toBe(COSMOS_PRIV_HEX);
    expectOneLineError(
      await chaind(["keys", "import", "gaia", cosmosFile, "--home", home, ...FILE], { input: "123456789\n" }),
      /key "gaia" already exists/,
    );
  });

  it("refuses corrupt armor before asking a passphrase, with a one-line error", async () => {
    const cases: [string, RegExp][] = [
      [
        COSMOS_ARMOR.replaceAll("TENDERMINT PRIVATE KEY", "TENDERMINT PUBLIC KEY"),
        /armor type is "TENDERMINT PUBLIC KEY", expected "TENDERMINT PRIVATE KEY"/,
      ],
      [COSMOS_ARMOR.replace("kdf: bcrypt", "kdf: argon2"), /unrecognized KDF type: argon2/],
      [
        COSMOS_ARMOR.replace("kdf: bcrypt", "kdf: bcrypt\ntype: ed25519"),
        /key type "ed25519" is not supported/,
      ],
      [COSMOS_ARMOR.slice(0, 120), /no -----END TENDERMINT PRIVATE KEY----- line/],
      ["not an armored key\n", /no -----BEGIN/],
    ];
    for (const [text, re] of cases) {
      expect(() => parseArmoredPrivateKey(text)).toThrow(re);
    }
    // A crafted KDF: 4 GiB of memory (n=2^20, r=32), or minutes of work (a huge p), asked of the operator.
    for (const [params, re] of [
      ["n=1048576,r=32,p=1", /n=1048576, r=32 would take 4096 MiB, over the 256 MiB allowed/],
      ["n=262144,r=8,p=16", /n\*r\*p=33554432 is over the 2097152 allowed/],
      ["n=3,r=8,p=1", /n must be a power of two/],
    ] as const) {
      const crafted = COSMOS_ARMOR.replace("kdf: bcrypt", `kdf: scrypt\nkdfparams: ${params},dklen=32`);
      expect(() => parseArmoredPrivateKey(crafted)).toThrow(re);
    }
    // Through the binary: one base64 character changed, so the CRC-24 line no longer matches.
    const home = join(dir, "corrupt");
    const file = join(dir, "corrupt.armor");
    writeFileSync(file, COSMOS_ARMOR.replace("HbP+c6Jme", "HbP+c6Jma"));
    const r = await chaind(["keys", "import", "k", file, "--home", home, ...TEST], { input: "123456789\n" });
    expectOneLineError(r, /^Error: invalid armored private key: checksum mismatch/);
    expect(r.stderr).not.toContain("Enter passphrase");
    const greedy = join(dir, "greedy.armor");
    writeFileSync(
      greedy,
      COSMOS_ARMOR.replace("kdf: bcrypt", "kdf: scrypt\nkdfparams: n=1048576,r=32,p=1,dklen=32"),
    );
    const refused = await chaind(["keys", "import", "g", greedy, "--home", home, ...TEST], {
      input: "123456789\n",
    });
    expectOneLineError(
      refused,
      /^Error: invalid armored private key: scrypt kdfparams refused: .* over the 256 MiB allowed$/,
    );
    expect(refused.stderr).not.toContain("Enter passphrase");
    expectOneLineError(
      await chaind(["keys", "import", "k", join(dir, "missing.armor"), "--home", home, ...TEST]),
      /cannot read key file .*missing\.armor/,
    );
  });

  it("import-hex takes the key as an argument or from stdin; bad hex is refused", async () => {
    const home = join(dir, "hex");
    const r = await chaind(["keys", "import-hex", "a", `0x${COSMOS_PRIV_HEX}`, "--home", home, ...TEST]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((await chaind(["keys", "show", "a", "-a", "--home", home, ...TEST])).stdout).toBe(COSMOS_ADDRESS);
    const fromStdin = await chaind(["keys", "import-hex", "b", "--home", home, ...TEST], {
      input: `${ABANDON_PRIV_HEX}\n`,
    });
    expect(fromStdin.exitCode, fromStdin.stderr).toBe(0);
    expect((await chaind(["keys", "show", "b", "-a", "--home", home, ...TEST])).stdout).toBe(ABANDON_ADDRESS);
    expectOneLineError(
      await chaind(["keys", "import-hex", "c", "abcd", "--home", home, ...TEST]),
      /want 32 bytes as 64 hex digits/,
    );
    expectOneLineError(
      await chaind([
        "keys",
        "import-hex",
        "c",
        COSMOS_PRIV_HEX,
        "--key-type",
        "ed25519",
        "--home",
        home,
        ...TEST,
      ]),
      /unsupported signing algorithm "ed25519"/,
    );
    expectOneLineError(
      await chaind(["keys", "import-hex", "c", COSMOS_PRIV_HEX, "--home", home, ...TEST]),
      /already in the keyring as "a"/,
    );
  });

  it("rename keeps the key and its address, refuses a taken name, and asks unless --yes", async () => {
    const home = join(dir, "rename");
    await chaind(["keys", "add", "alice", "--recover", "--home", home, ...TEST], { input: `${ABANDON}\n` });
    await chaind(["keys", "add", "bob", "--home", home, ...TEST]);
    expectOneLineError(
      await chaind(["keys", "rename", "alice", "bob", "-y", "--home", home, ...TEST]),
      /key "bob" already exists/,
    );
    expectOneLineError(
      await chaind(["keys", "rename", "alice", "carol", "--home", home, ...TEST], { input: "y\n" }),
      /stdin is not a terminal; pass --yes/,
    );
    const renamed = await chaind(["keys", "rename", "alice", "carol", "--yes", "--home", home, ...TEST]);
    expect(renamed.exitCode, renamed.stderr).toBe(0);
    expect(renamed.stderr).toContain("Key was successfully renamed from alice to carol");
    expect((await chaind(["keys", "list", "-n", "--home", home, ...TEST])).stdout).toBe("bob\ncarol");
    expect((await chaind(["keys", "show", "carol", "-a", "--home", home, ...TEST])).stdout).toBe(
      ABANDON_ADDRESS,
    );
    expect((await chaind(["keys", "show", ABANDON_ADDRESS, "--home", home, ...TEST])).stdout).toContain(
      "name: carol",
    );
    const hex = await chaind(
      ["keys", "export", "carol", "--unarmored-hex", "--unsafe", "--home", home, ...TEST],
      {
        input: "y\n",
      },
    );
    expect(hex.stdout).toBe(ABANDON_PRIV_HEX);
    expectOneLineError(
      await chaind(["keys", "show", "alice", "--home", home, ...TEST]),
      /key "alice" not found/,
    );
  });

  it("mnemonic prints 24 valid BIP39 words, new each time; add --ledger is refused", async () => {
    const [one, two] = await Promise.all([chaind(["keys", "mnemonic"]), chaind(["keys", "mnemonic"])]);
    for (const r of [one, two]) {
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout.split(" ")).toHaveLength(24);
      expect(validateMnemonic(r.stdout, wordlist)).toBe(true);
    }
    expect(one.stdout).not.toBe(two.stdout);

    const home = join(dir, "ledger");
    expectOneLineError(
      await chaind(["keys", "add", "hw", "--ledger", "--home", home, ...TEST]),
      /hardware wallets are not supported/,
    );
    expect((await chaind(["keys", "list", "-n", "--home", home, ...TEST])).stdout).toBe("");
  });
});
